import type { HttpClient } from '../http/client.js';
import type { AccountStanding } from './account-standing.js';
import type { ServerPaging } from '../paging/server-paging.js';
import type { ApiName } from '../spec/apis.js';
import type { Point } from '../points.js';
import type { WindowRule } from '../plan/windows.js';
import type { Span } from '../spans.js';
import type { DvrRecordingStore } from '../state/dvr-recordings.js';
import type { DvrTurnsRule } from './dvr/turns.js';
import type { StreamstatShape } from './streamstat/shape.js';
import type { MetricsPeriodLimit } from './metrics/window-limit.js';

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
  collect(span: Span, http: HttpClient, handOff?: PointsHandOff): Promise<Point[]>;
}

/**
 * Takes a part of a span's points before the span is read whole (the collector writes it; the span is confirmed once
 * every part and the rest are written). The read waits for a part to be taken before it reads on.
 */
export type PointsHandOff = (points: Point[]) => Promise<void>;

/** What every source's jobs share: the accounts this instance collects, the language and the page size. */
export interface JobContext {
  accounts: readonly string[];
  /** Sent only when set (or where points carry names; see the statistic jobs). */
  language?: 'en' | 'ru' | undefined;
  /** `limit` of paged reads (api.pageSize). */
  pageSize: number;
  /** What paging learnt of the server (the HttpClient's): the planner forecasts paged reads from it. */
  paging?: ServerPaging;
  /** Rows one answer of the API may carry inside its body cap (row-budget.ts; default: the 32 MiB cap's). */
  rowBudget?: Partial<Record<ApiName, number>>;
  /** Which accounts the inventory listed or an API refused, for the whole runtime (a job of several asks it). */
  accountStanding?: AccountStanding;
  /** The longest metrics period the service takes, learnt once for the whole runtime (default: one per job builder). */
  metricsPeriod?: MetricsPeriodLimit;
  /** `accounts: auto`: more accounts may join (the statistic totals are then read for all in one call). */
  accountsAuto?: boolean;
  /** The accounts whose statistic totals the shared `/times/accounts` job writes, kept for the whole runtime. */
  statisticAccounts?: Set<string>;
  /** Whether stream views answer in buckets, learnt once for the whole runtime (default: one per call of the job
   * builder). */
  streamstatShape?: StreamstatShape;
  /** DVR recordings' identities, shared by every stream of the runtime (default: a fresh memory per job builder). */
  dvrRecordings?: DvrRecordingStore;
  /** `output.overwrites`: false where the database keeps every sample (points rewritten with new values are not). */
  overwrites?: boolean | undefined;
  /** Config `quotas`: DVR streams take turns when they need more snapshots than the DVR quota allows. */
  quotas?: { dvr?: DvrTurnsRule['quota'] } | undefined;
}
