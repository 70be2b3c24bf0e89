import type { Clock } from '../clock.js';
import type { ErrorCode } from '../errors.js';
import type { Failure } from '../failure.js';
import type { ApiName, QuotaRule } from '../spec/apis.js';

export type { QuotaRule };

/** One quota per API; `null` = no quota (calls still get retries, priorities and the concurrency cap). */
export type QuotaSet = Partial<Record<ApiName, QuotaRule | null>>;

/** `live` calls always go before queued `backfill` calls; FIFO within a priority. */
export type Priority = 'live' | 'backfill';

/**
 * Telemetry of a limiter:
 * - `call`: an attempt finished; `status` when an HTTP response came back; when it failed, `code`, the `error` and its
 *   `failure` (src/failure.ts): the one stream every watcher of API calls reads (telemetry, the log lines, progress).
 * - `retry`: a failed attempt will be retried after `waitMs`.
 * - `throttled`: a call waited `waitMs` in the queue before it was sent, or a 429 blocked the API for `waitMs`.
 * - `error`: the call gave up (`reason`: `final` error, or the `deadline` came first); its error is thrown.
 * - `retry-after-capped`: the server asked for `requestedMs`, more than the limiter's maximum; it waits `waitMs`.
 */
export interface LimiterEvent {
  type: 'call' | 'retry' | 'throttled' | 'error' | 'retry-after-capped';
  api: ApiName;
  /** The attempt the event is about (1 = first); for `error`, the attempts made (0: the call never got a slot). */
  attempt: number;
  status?: number;
  code?: ErrorCode;
  waitMs?: number;
  reason?: 'final' | 'deadline';
  requestedMs?: number;
  /** `call` of a failed attempt: what it threw (typed errors carry no secret) and how it is classified. */
  error?: unknown;
  failure?: Failure;
}

export interface RunOptions {
  priority?: Priority;
  /** Give up this long after `run` was called (queue time included); the last error is thrown. */
  deadlineMs?: number;
  /** Aborts waiting (queue, backoff); an in-flight send is not interrupted (pass the signal to the request too). */
  signal?: AbortSignal;
}

/** Waits about `ms` (it may return early: callers re-check their clock), rejecting when `signal` aborts. */
export type Sleeper = (ms: number, signal?: AbortSignal) => Promise<void>;

/** What a previous process spent of a quota, as a journal read it back. */
export interface CallHistory {
  /** Completion times of its recent calls, on the clock passed to `history`. */
  completedAt: number[];
  /**
   * Calls sent but never seen completing (the process died), or Infinity when the journal was damaged: counted as
   * completed now, since they may have reached the server up to now. Only the quota's N are ever counted.
   */
  unsettled: number;
}

/**
 * Persists the calls a limiter makes, so a restarted process knows what the previous one spent of the quota
 * (src/state/quota-journal.ts). `sent` is called before the request goes out, `completed` when it has settled; both are
 * best effort (they must not throw, and the limiter's accounting never depends on them).
 */
export interface CallJournal {
  /** The previous process's calls, with times on `clock` (the limiter's time base). */
  history(api: ApiName, clock: Clock): CallHistory;
  sent(api: ApiName): void;
  completed(api: ApiName): void;
}

/** See Limiter.snapshot. */
export interface LimiterSnapshot {
  queued: number;
  /** Of the queued calls, those at backfill priority. */
  queuedBackfill: number;
  inFlight: number;
  recentCompletions: number;
  retainedCompletions: number;
  nextSlotInMs: number;
}
