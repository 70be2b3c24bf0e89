import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.js';
import {
  collectableEnd,
  metricsRule,
  provisionalSpans,
  spans,
  statisticRule,
  streamstatRule,
  validateRule,
  type Span,
  type WindowRule,
} from '../../src/plan/windows.js';
import { HOUR, MINUTE } from '../../src/time.js';

const T0 = Date.UTC(2024, 0, 15, 12, 0); // a whole hour
const span = (from: number, to: number): Span => ({ from, to });
const rule = (stepMs: number, delayMs: number, maxSpanMs: number): WindowRule => ({ stepMs, delayMs, maxSpanMs });

describe('validateRule', () => {
  it('accepts a sound rule and names the broken field otherwise', () => {
    expect(validateRule(rule(MINUTE, 0, 5 * MINUTE))).toEqual(rule(MINUTE, 0, 5 * MINUTE));
    expect(() => validateRule(rule(0, 0, MINUTE))).toThrow(/stepMs/);
    expect(() => validateRule(rule(-MINUTE, 0, MINUTE))).toThrow(/stepMs/);
    expect(() => validateRule(rule(MINUTE, -1, MINUTE))).toThrow(/delayMs/);
    expect(() => validateRule(rule(MINUTE, 0, 30_000))).toThrow(/maxSpanMs/);
    expect(() => validateRule(rule(MINUTE, 0, 90_000))).toThrow(/maxSpanMs/);
    expect(() => validateRule(rule(30_000, 0, 60_000), { wholeMinutes: true, name: 'jobs.x' })).toThrow(
      /jobs\.x\.stepMs/,
    );
    expect(() => validateRule(rule(0, 0, MINUTE))).toThrow(ParameterError);
  });
});

describe('collectableEnd', () => {
  const r = rule(5 * MINUTE, 2 * MINUTE, 5 * MINUTE);

  it('a window becomes collectable exactly delay after it closes, not 1 ms before', () => {
    const windowEnd = T0 + 5 * MINUTE;
    expect(collectableEnd(r, windowEnd + 2 * MINUTE - 1)).toBe(T0);
    expect(collectableEnd(r, windowEnd + 2 * MINUTE)).toBe(windowEnd);
  });

  it('is always aligned and never beyond now − delay (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_000_000_000_000 }), (now) => {
        const end = collectableEnd(r, now);
        expect(Math.abs(end % r.stepMs)).toBe(0);
        expect(end).toBeLessThanOrEqual(now - r.delayMs);
        expect(end + r.stepMs).toBeGreaterThan(now - r.delayMs);
      }),
    );
  });
});

describe('spans', () => {
  it('cuts greedily into spans of at most maxSpan', () => {
    const r = rule(MINUTE, 0, 3 * MINUTE);
    expect(spans(r, T0, T0 + 7 * MINUTE)).toEqual([
      span(T0, T0 + 3 * MINUTE),
      span(T0 + 3 * MINUTE, T0 + 6 * MINUTE),
      span(T0 + 6 * MINUTE, T0 + 7 * MINUTE),
    ]);
  });

  it('never exceeds maxSpan, never crosses the range ends, covers every whole window (property)', () => {
    const stepArb = fc.constantFrom(MINUTE, 5 * MINUTE, HOUR);
    fc.assert(
      fc.property(stepArb, fc.integer({ min: 1, max: 12 }), fc.nat(50 * HOUR), fc.nat(50 * HOUR), (step, k, a, len) => {
        const r = rule(step, 0, k * step);
        const from = T0 + a;
        const to = from + len;
        const out = spans(r, from, to);
        // One assertion per rule over all spans (the spans run to thousands), each listing the spans that break it.
        expect(out.filter((s) => s.to - s.from > r.maxSpanMs)).toEqual([]);
        expect(out.filter((s) => s.to <= s.from)).toEqual([]);
        expect(out.filter((s) => s.from < from)).toEqual([]);
        expect(out.filter((s) => s.to > to)).toEqual([]);
        expect(out.filter((s) => s.from % step !== 0)).toEqual([]);
        expect(out.filter((s) => s.to % step !== 0)).toEqual([]);
        expect(out.filter((s, i) => i > 0 && s.from !== out[i - 1]!.to)).toEqual([]);
        const covered = out.reduce((n, s) => n + (s.to - s.from) / step, 0);
        // Every whole window of the range: those starting at or after `from` and ending by `to`.
        expect(covered).toBe(Math.max(0, Math.floor(to / step) - Math.ceil(from / step)));
      }),
    );
  });
});

describe('metricsRule', () => {
  it('makes one window per span, of 1–10 whole minutes', () => {
    expect(metricsRule(10, 2 * MINUTE)).toEqual(rule(10 * MINUTE, 2 * MINUTE, 10 * MINUTE));
    expect(metricsRule(1)).toEqual(rule(MINUTE, 0, MINUTE));
    const r = metricsRule(5, MINUTE);
    expect(spans(r, T0, T0 + 20 * MINUTE)).toHaveLength(4);
  });

  it('rejects 0, 11 and non-minute windows with an error naming the window', () => {
    for (const bad of [0, 11, 1.5, -1, Number.NaN]) {
      expect(() => metricsRule(bad)).toThrow(ParameterError);
      expect(() => metricsRule(bad)).toThrow(/^window: .*1–10 whole minutes/);
    }
  });

  it('rejects a negative delay', () => {
    expect(() => metricsRule(5, -1)).toThrow(/delayMs/);
  });
});

describe('statisticRule and streamstatRule', () => {
  it('default to a 1 h lag (statistic), 5 min (streamstat) and a one-day span', () => {
    expect(statisticRule(5 * MINUTE)).toEqual(rule(5 * MINUTE, HOUR, 24 * HOUR));
    expect(streamstatRule(MINUTE)).toEqual(rule(MINUTE, 5 * MINUTE, 24 * HOUR));
    expect(statisticRule(HOUR, 30 * MINUTE, 6 * HOUR)).toEqual(rule(HOUR, 30 * MINUTE, 6 * HOUR));
  });

  it('rejects granularities that do not divide a day, and spans that are not a multiple', () => {
    expect(() => statisticRule(7 * 24 * HOUR)).toThrow(/statistic\.granularity/);
    expect(() => streamstatRule(30_000)).toThrow(/streamstat\.granularity/);
    expect(() => statisticRule(7 * MINUTE)).toThrow(/granularity/);
    expect(() => statisticRule(HOUR, HOUR, 90 * MINUTE)).toThrow(/statistic\.maxSpanMs/);
    expect(() => statisticRule(HOUR, -1)).toThrow(/statistic\.delayMs/);
  });

  it('keeps a bucket out until the lag has passed', () => {
    const r = statisticRule(5 * MINUTE);
    const bucketEnd = T0 + 5 * MINUTE;
    expect(collectableEnd(r, bucketEnd + HOUR - 1)).toBe(T0);
    expect(collectableEnd(r, bucketEnd + HOUR)).toBe(bucketEnd);
  });
});

describe('provisionalSpans', () => {
  const r = statisticRule(15 * MINUTE, HOUR, 24 * HOUR);

  it('returns the closed but not yet final buckets', () => {
    const now = T0 + 2 * HOUR + 20 * MINUTE; // 14:20: buckets up to 13:15 are final, 14:15 is the last closed
    expect(provisionalSpans(r, now, 3 * HOUR)).toEqual([span(T0 + HOUR + 15 * MINUTE, T0 + 2 * HOUR + 15 * MINUTE)]);
  });

  it('is limited by the lookback', () => {
    const now = T0 + 2 * HOUR + 20 * MINUTE;
    expect(provisionalSpans(r, now, 30 * MINUTE)).toEqual([span(T0 + 2 * HOUR, T0 + 2 * HOUR + 15 * MINUTE)]);
    expect(provisionalSpans(r, now, 0)).toEqual([]);
  });

  it('never overlaps the final part nor the open bucket (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 * 24 * HOUR }), fc.nat(5 * HOUR), (offset, lookback) => {
        const now = T0 + offset;
        for (const s of provisionalSpans(r, now, lookback)) {
          expect(s.from).toBeGreaterThanOrEqual(collectableEnd(r, now));
          expect(s.to).toBeLessThanOrEqual(now);
          expect(s.from).toBeGreaterThanOrEqual(now - lookback);
          expect(s.to - s.from).toBeLessThanOrEqual(r.maxSpanMs);
        }
      }),
    );
  });
});
