import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pendingSpans } from '../../src/plan/pending.js';
import { SINGLE_CALL } from '../../src/paging/walk.js';
import type { CollectJob, Span } from '../../src/sources/common/types.js';
import { MINUTE } from '../../src/time.js';
import { pendingState } from '../helpers/pending-state.js';

const T0 = Date.UTC(2024, 0, 15, 12, 0);
const m = (i: number) => T0 + i * MINUTE;
const span = (from: number, to: number): Span => ({ from, to });
const job: CollectJob = {
  key: 'fake/job',
  api: 'metrics',
  rule: { stepMs: MINUTE, delayMs: 0, maxSpanMs: 4 * MINUTE },
  checkpointed: true,
  callsFor: () => SINGLE_CALL,
  collect: async () => [],
};

describe('pendingSpans (the one planner of passes and backfills)', () => {
  const range = (a: number, b: number) => span(m(a), m(b));

  it('returns the holes between confirmed spans, cut to maxSpan', () => {
    const confirmed = [span(m(2), m(3)), span(m(12), m(13)), span(m(5), m(6))]; // unsorted on purpose
    expect(pendingSpans(job, pendingState(confirmed), m(60), range(0, 15))).toEqual([
      span(m(0), m(2)),
      span(m(3), m(5)),
      span(m(6), m(10)),
      span(m(10), m(12)),
      span(m(13), m(15)),
    ]);
  });

  it('is empty when everything is confirmed, and the whole range when nothing is', () => {
    expect(pendingSpans(job, pendingState([span(m(-5), m(20))]), m(60), range(0, 10))).toEqual([]);
    expect(pendingSpans(job, pendingState([]), m(60), range(0, 6))).toEqual([span(m(0), m(4)), span(m(4), m(6))]);
  });

  it('stops at the newest collectable window and skips set-aside spans waiting for their retry', () => {
    const late = { ...job, rule: { ...job.rule, delayMs: 2 * MINUTE } };
    expect(pendingSpans(late, pendingState([]), m(10), range(0, 60))).toEqual([span(m(0), m(4)), span(m(4), m(8))]);
    expect(pendingSpans(job, pendingState([], [span(m(1), m(2))]), m(60), range(0, 4))).toEqual([
      span(m(0), m(1)),
      span(m(2), m(4)),
    ]);
  });

  it('misses exactly the windows not confirmed (property)', () => {
    const confirmedArb = fc.array(
      fc.tuple(fc.integer({ min: -5, max: 40 }), fc.integer({ min: 1, max: 8 })).map(([a, l]) => span(m(a), m(a + l))),
      { maxLength: 8 },
    );
    fc.assert(
      fc.property(
        confirmedArb,
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 0, max: 30 }),
        (confirmed, a, len) => {
          const out = pendingSpans(job, pendingState(confirmed), m(60), range(a, a + len));
          for (let i = a; i < a + len; i++) {
            const isConfirmed = confirmed.some((s) => s.from <= m(i) && m(i + 1) <= s.to);
            const isMissing = out.some((s) => s.from <= m(i) && m(i + 1) <= s.to);
            expect(isMissing).toBe(!isConfirmed);
          }
          for (const s of out) expect(s.to - s.from).toBeLessThanOrEqual(job.rule.maxSpanMs);
        },
      ),
    );
  });
});
