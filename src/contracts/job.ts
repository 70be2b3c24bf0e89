import type { Requester } from './requester.js';
import type { Point } from '../points.js';
import type { Span } from '../spans.js';
import type { ApiName } from '../spec/apis.js';
import type { WindowRule } from './window-rule.js';

export type { Span } from '../spans.js';

/** What reading one span costs in HTTP calls, for planning (see planBackfill). */
export interface SpanCalls {
  /** Calls it takes at least: one, or the pages of a list whose length is known (statistic buckets). */
  least: number;
  /**
   * Calls it takes at most while its buckets have the groups paging knows of (at most a page when none is known):
   * a paged read's check page (see walkPages) is paid or not depending on what the API served before it.
   */
  most: number;
  /** Paging can add calls beyond `most`: how many rows come back is not known before the answer. */
  paged: boolean;
}

/**
 * One unit of collection: a source, a key (account, grouping…) and its window rule. The collector plans spans from the
 * rule, calls `collect` through the limiter-gated client, writes the points and only then confirms the span.
 */
export interface CollectJob {
  /** Stable key of the checkpoint, e.g. `statistic/acme/countries`. */
  key: string;
  api: ApiName;
  /** The one account the job reads (absent for a job of several accounts): what an API's refusal of it names. */
  account?: string;
  rule: WindowRule;
  /**
   * True when the job keeps checkpoints: its gaps are filled and it can be backfilled. False for state snapshots (DVR:
   * the past cannot be read) and provisional early reads of statistics (re-read once final by the checkpointed job);
   * such a job reads `currentSpans(now)` on every pass.
   */
  checkpointed: boolean;
  /**
   * Checkpoint keys a job that reads several accounts in one call collects for (statistic `/times/accounts`). Without
   * a span: all of them, read at every pass (the set grows as accounts are discovered); a span is pending while any
   * of them lacks it, each from its own origin. With a span just collected: the keys its points were written for,
   * which the collector confirms along with `key` (an account that joined meanwhile is not among them).
   */
  sharedKeys?(span?: Span): readonly string[];
  /** Spans a non-checkpointed job reads now; default: the step window that contains `now`. */
  currentSpans?(now: number): Span[];
  /** HTTP calls reading `span` costs: for planning. */
  callsFor(span: Span): SpanCalls;
  /**
   * Reads one span and maps it to points. Paging calls go through the same client. With `handOff`, a read of several
   * pages hands each page's points to it as they come and returns the rest: what a span holds is then one answer's
   * points (within the row budget), not the span's, however many groups the account has.
   */
  collect(span: Span, http: Requester, handOff?: PointsHandOff): Promise<Point[]>;
}

/**
 * Takes a part of a span's points before the span is read whole (the collector writes it; the span is confirmed once
 * every part and the rest are written). The read waits for a part to be taken before it reads on.
 */
export type PointsHandOff = (points: Point[]) => Promise<void>;
