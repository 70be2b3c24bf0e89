import { ApiError } from '../http/errors.js';

export interface BackoffOptions {
  /** Cap of the first retry's delay; it doubles with each attempt. */
  baseMs: number;
  /** The largest delay drawn. */
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, capMs: 30_000 };

/**
 * "Full jitter" exponential backoff: uniform in [0, min(cap, base · 2^(attempt−1))), so retries of many callers
 * spread out instead of arriving together. `attempt` is the attempt that just failed (1 = first).
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number): number {
  const ceiling = Math.min(options.capMs, options.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * The server's Retry-After (429, 503) in ms, if it sent a usable one (negative or non-finite: as if absent), cut to
 * `maxMs`: an absurd value or a far-future date would otherwise stop the API until restart.
 */
export function retryAfterMs(err: unknown, maxMs: number): { waitMs: number; requestedMs: number } | undefined {
  if (!(err instanceof ApiError) || err.retryAfterSec === undefined) return undefined;
  const requestedMs = err.retryAfterSec * 1000;
  if (!Number.isFinite(requestedMs) || requestedMs < 0) return undefined;
  return { waitMs: Math.min(requestedMs, maxMs), requestedMs };
}

export function isQuotaRejection(err: unknown): err is ApiError {
  return err instanceof ApiError && err.status === 429;
}
