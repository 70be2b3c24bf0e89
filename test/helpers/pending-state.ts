import type { PendingState } from '../../src/plan/pending.js';
import type { Span } from '../../src/sources/common/types.js';
import { mergeSpan, subtractSpans } from '../../src/spans.js';
import { DAY, HOUR } from '../../src/time.js';

/**
 * The state pendingSpans reads, in memory: `confirmed` spans kept as the checkpoint store keeps them (merged), and
 * `waiting` set-aside spans whose retry is not due. Horizon a year, initial lookback an hour. The daemon's origin is
 * `origin`, by default the oldest confirmed or set-aside span (a state directory from before origins were recorded).
 */
export function pendingState(
  confirmed: readonly Span[],
  waiting: readonly Span[] = [],
  origin: number | undefined | 'oldest' = 'oldest',
): PendingState {
  const merged = confirmed.reduce<Span[]>(mergeSpan, []);
  const oldest = Math.min(merged[0]?.from ?? Infinity, ...waiting.map((s) => s.from));
  const recorded = origin !== 'oldest' ? origin : Number.isFinite(oldest) ? oldest : undefined;
  return {
    store: {
      confirmed: () => merged,
      missing: (_key, from, to) => subtractSpans(merged, from, to),
      origin: () => recorded,
      originLookback: () => undefined,
    },
    aside: {
      list: () => waiting.map((s) => ({ ...s, reason: 'failed', firstAt: 0, attempts: 1, nextRetryAt: Infinity })),
      waiting: () => [...waiting],
    },
    horizonMs: 365 * DAY,
    initialLookbackMs: HOUR,
  };
}
