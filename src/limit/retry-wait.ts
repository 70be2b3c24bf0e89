import { retried, type Failure } from '../failure.js';
import { backoffDelay, type BackoffOptions } from './backoff.js';

/** What decides the wait between attempts: the limiter's settings. */
export interface RetryPolicy {
  backoff: BackoffOptions;
  /** A server's Retry-After longer than this is cut to it. */
  maxRetryAfterMs: number;
  /** Source of the backoff's jitter. */
  random: () => number;
  /** The quota's period, if any: how long a 429 without Retry-After holds the API. */
  periodMs: number | undefined;
}

/** The wait before the next attempt of a failed call, and what else the failure asks of the limiter. */
export interface RetryWait {
  waitMs: number;
  /** A 429: our count was off, every call of the API is held this long (the window counts as full). */
  blockMs?: number;
  /** The server asked for `requestedMs`, more than the policy allows: it was cut to `waitMs`. */
  capped?: { requestedMs: number; waitMs: number };
}

/**
 * The retry policy, decided here only: full-jitter backoff, lengthened to the server's Retry-After (capped); a 429
 * holds the API until the server lets us in again, without Retry-After for a whole period. undefined: the failure is
 * final (src/failure.ts), no retry.
 */
export function retryWait(failure: Failure, attempt: number, policy: RetryPolicy): RetryWait | undefined {
  if (!retried(failure.class)) return undefined;
  let waitMs = backoffDelay(attempt, policy.backoff, policy.random);
  const requestedMs = failure.waitMs;
  // An absurd Retry-After or a far-future date would otherwise stop the API until restart.
  const serverWaitMs = requestedMs === undefined ? undefined : Math.min(requestedMs, policy.maxRetryAfterMs);
  const capped =
    requestedMs !== undefined && requestedMs > policy.maxRetryAfterMs
      ? { capped: { requestedMs, waitMs: policy.maxRetryAfterMs } }
      : {};
  if (serverWaitMs !== undefined) waitMs = Math.max(waitMs, serverWaitMs);
  if (failure.class !== 'quota') return { waitMs, ...capped };
  const blockMs = serverWaitMs ?? policy.periodMs ?? waitMs;
  return { waitMs: Math.max(waitMs, blockMs), blockMs, ...capped };
}
