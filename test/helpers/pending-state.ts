import type { PendingState } from '../../src/plan/pending.js';
import type { Span } from '../../src/sources/types.js';
import { mergeSpan, subtractSpans } from '../../src/spans.js';
import { DAY, HOUR } from '../../src/time.js';

/**
 * The state pendingSpans reads, in memory: `confirmed` spans kept as the checkpoint store keeps them (merged), and
 * `waiting` set-aside spans whose retry is not due. Horizon a year, initial lookback an hour.
 */
export function pendingState(confirmed: readonly Span[], waiting: readonly Span[] = []): PendingState {
  const merged = confirmed.reduce<Span[]>(mergeSpan, []);
  return {
    store: { confirmed: () => merged, missing: (_key, from, to) => subtractSpans(merged, from, to) },
    aside: {
      list: () => waiting.map((s) => ({ ...s, reason: 'failed', firstAt: 0, attempts: 1, nextRetryAt: Infinity })),
      waiting: () => [...waiting],
    },
    horizonMs: 365 * DAY,
    initialLookbackMs: HOUR,
  };
}
