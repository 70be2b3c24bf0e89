import type { HttpClient } from '../http/client.js';
import type { ApiName } from '../spec/apis.js';
import type { Point } from '../points.js';

/** Half-open time span [from, to) in epoch ms. */
export interface Span {
  from: number;
  to: number;
}

/** How a job's time is cut: aligned windows of `stepMs`, readable `delayMs` after they close, ≤ `maxSpanMs` per call. */
export interface JobRule {
  stepMs: number;
  delayMs: number;
  maxSpanMs: number;
}

/**
 * One unit of collection: a source, a key (account, grouping…) and its window rule. The collector plans spans from the
 * rule, calls `collect` through the limiter-gated client, writes the points and only then confirms the span.
 */
export interface CollectJob {
  /** Stable key of the checkpoint, e.g. `statistic/acme/countries`. */
  key: string;
  api: ApiName;
  rule: JobRule;
  /**
   * False for jobs without checkpoints: state snapshots (DVR: the past cannot be read) and provisional early reads of
   * statistics (re-read once final by the checkpointed job). Such a job reads `currentSpans(now)` on every pass.
   */
  backfill: boolean;
  /** Spans a non-checkpointed job reads now; default: the step window that contains `now`. */
  currentSpans?(now: number): Span[];
  /** HTTP calls one span costs (paging excluded): for planning. */
  callsPerSpan: number;
  /** Reads one span and maps it to points. Paging calls go through the same client. */
  collect(span: Span, http: HttpClient): Promise<Point[]>;
}

/** What every source's jobs share: the accounts this instance collects and the language of names in results. */
export interface JobContext {
  accounts: readonly string[];
  language: 'en' | 'ru';
}
