import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.js';
import { advanceWatermark, assertSpan, dropBefore, mergeSpan, subtractSpans, type Span } from '../../src/spans.js';

const span = (from: number, to: number): Span => ({ from, to });

describe('mergeSpan', () => {
  it('fuses touching and overlapping spans and keeps gaps', () => {
    let spans: Span[] = [];
    for (const s of [span(40, 50), span(0, 10), span(10, 20), span(60, 70), span(45, 65)]) spans = mergeSpan(spans, s);
    expect(spans).toEqual([span(0, 20), span(40, 70)]);
  });

  it('converges to the same list whatever the order (property)', () => {
    const spanArb = fc
      .tuple(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 1, max: 20 }))
      .map(([a, len]) => span(a, a + len));
    fc.assert(
      fc.property(fc.array(spanArb, { maxLength: 30 }), (list) => {
        const forward = list.reduce<Span[]>(mergeSpan, []);
        const backward = [...list].reverse().reduce<Span[]>(mergeSpan, []);
        expect(backward).toEqual(forward);
        // Covered points are exactly the union of the inputs.
        for (let t = 0; t < 125; t++) {
          const inInput = list.some((s) => s.from <= t && t < s.to);
          const inMerged = forward.some((s) => s.from <= t && t < s.to);
          expect(inMerged).toBe(inInput);
        }
        forward.forEach((s, i) => i > 0 && expect(s.from).toBeGreaterThan(forward[i - 1]!.to));
      }),
    );
  });
});

describe('subtractSpans', () => {
  const confirmed = [span(10, 20), span(30, 40)];
  it('returns the gaps inside the range', () => {
    expect(subtractSpans(confirmed, 0, 50)).toEqual([span(0, 10), span(20, 30), span(40, 50)]);
    expect(subtractSpans(confirmed, 15, 35)).toEqual([span(20, 30)]);
    expect(subtractSpans(confirmed, 10, 20)).toEqual([]);
    expect(subtractSpans([], 5, 6)).toEqual([span(5, 6)]);
  });
});

describe('dropBefore and advanceWatermark', () => {
  it('cuts a straddling span at the horizon', () => {
    expect(dropBefore([span(0, 10), span(20, 30)], 25)).toEqual([span(25, 30)]);
  });
  it('moves the watermark only through a span that touches it', () => {
    expect(advanceWatermark([span(0, 10)], undefined)).toBe(10);
    expect(advanceWatermark([span(0, 10), span(20, 30)], 10)).toBe(10);
    expect(advanceWatermark([span(0, 30)], 10)).toBe(30);
    expect(advanceWatermark([span(50, 60)], 40)).toBe(40);
  });
});

describe('assertSpan', () => {
  it('rejects empty, reversed and fractional spans naming the parameter', () => {
    expect(() => assertSpan(span(5, 5))).toThrow(ParameterError);
    expect(() => assertSpan(span(6, 5))).toThrow(/span: from must be before to/);
    expect(() => assertSpan(span(0.5, 5))).toThrow(/integer/);
  });
});
