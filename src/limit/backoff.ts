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
