/**
 * How a job's time axis is cut into windows (plan/windows.ts computes with it; each source makes its jobs' rules).
 * Windows start at multiples of `stepMs` since the epoch and are read `delayMs` after they close.
 */
export interface WindowRule {
  /** Window length; windows start at multiples of it since the epoch. */
  stepMs: number;
  /** How long after a window closes it may be read (metrics settling, statistics lag). */
  delayMs: number;
  /** The widest span one call may cover: a multiple of `stepMs`. */
  maxSpanMs: number;
}
