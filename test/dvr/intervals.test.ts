import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { intersect, normalize, subtract, totalSeconds, type SecondsInterval } from '../../src/spec/dvr.js';

const interval = fc
  .tuple(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 1, max: 100 }))
  .map(([from, length]): SecondsInterval => ({ from, to: from + length }));

/** Every second any interval of the test can touch. */
const SECONDS = Array.from({ length: 700 }, (_, s) => s);
const covers = (list: SecondsInterval[], second: number) => list.some((i) => i.from <= second && second < i.to);

describe('interval arithmetic', () => {
  it('subtract removes exactly the cut, second by second', () => {
    fc.assert(
      fc.property(fc.array(interval, { maxLength: 6 }), interval, (raw, cut) => {
        const list = normalize(raw);
        const rest = subtract(list, cut);
        const inCut = (s: number) => cut.from <= s && s < cut.to;
        expect(SECONDS.filter((s) => covers(rest, s))).toEqual(SECONDS.filter((s) => covers(list, s) && !inCut(s)));
        expect(totalSeconds(rest) + totalSeconds(intersect(list, cut))).toBe(totalSeconds(list));
      }),
    );
  });

  it('normalize sorts and merges overlapping or touching intervals', () => {
    expect(
      normalize([
        { from: 10, to: 20 },
        { from: 0, to: 5 },
        { from: 5, to: 7 },
        { from: 15, to: 30 },
        { from: 40, to: 40 },
      ]),
    ).toEqual([
      { from: 0, to: 7 },
      { from: 10, to: 30 },
    ]);
  });
});
