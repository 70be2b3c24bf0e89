/**
 * Bounds on the times a checkpoint may hold. A span far in the future (say [0, 8e15)) passes every shape check and
 * makes its job collect nothing, silently, forever; such a value can only come from damage or a bug, so it is refused
 * both when written and when loaded.
 */
import { DAY } from '../time.js';

/** No CDN analytics predate this. */
export const EARLIEST_CHECKPOINT_TIME = Date.UTC(2000, 0, 1);

/** How far past the local clock a checkpoint may reach: clock corrections and skew between hosts sharing a volume. */
export const FUTURE_TOLERANCE_MS = DAY;

/** Why `ms` cannot be a checkpoint time at `now`, or undefined when it can. */
export function implausibleTime(ms: number, now: number): string | undefined {
  if (ms < EARLIEST_CHECKPOINT_TIME) return `${iso(ms)} is before ${iso(EARLIEST_CHECKPOINT_TIME)}`;
  if (ms > now + FUTURE_TOLERANCE_MS) return `${iso(ms)} is in the future (now ${iso(now)})`;
  return undefined;
}

function iso(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString();
}
