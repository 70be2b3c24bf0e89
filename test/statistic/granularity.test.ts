import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketSpans, bucketStarts, fixedLengthMs, parseGranularity } from '../../src/spec/granularity.js';
import { libraryBucketSpans, zonedBucketSpans, zonedBucketStarts } from '../../src/spec/zoned-buckets.js';
import { DAY, HOUR, MINUTE } from '../../src/time.js';

const utc = (s: string) => Date.parse(s);
const g = (text: string) => {
  const parsed = parseGranularity(text);
  if (!parsed) throw new Error(`not a granularity: ${text}`);
  return parsed;
};

describe('granularity grammar P[n]Y[n]M[n]DT[n]H[n]M[n]S with one non-zero component', () => {
  it('accepts single components, including the spec examples P1M and PT5M, and PnW', () => {
    expect(parseGranularity('P1M')).toEqual({ unit: 'month', count: 1, text: 'P1M' });
    expect(parseGranularity('PT5M')).toEqual({ unit: 'minute', count: 5, text: 'PT5M' });
    expect(parseGranularity('P2Y')?.unit).toBe('year');
    expect(parseGranularity('P3D')).toMatchObject({ unit: 'day', count: 3 });
    expect(parseGranularity('PT1H')?.unit).toBe('hour');
    expect(parseGranularity('PT120S')).toMatchObject({ unit: 'second', count: 120 });
    expect(parseGranularity('P1W')).toMatchObject({ unit: 'week', count: 1 });
    // zero components do not count as a second component
    expect(parseGranularity('P1DT0H')).toMatchObject({ unit: 'day', count: 1 });
  });

  it('rejects the spec counter-example P1DT12H and everything that is not one positive component', () => {
    for (const bad of [
      'P1DT12H',
      'P1Y1M',
      'PT1H30M',
      'P',
      'PT',
      'P1DT',
      'P0D',
      'PT0M',
      '1M',
      'p1m',
      'PT1.5H',
      'P-1D',
      'P1W1D',
      'PT5M ',
      '',
    ]) {
      expect(parseGranularity(bad), bad).toBeUndefined();
    }
  });

  it('gives the length of fixed units only', () => {
    expect(fixedLengthMs(g('PT5M'))).toBe(5 * MINUTE);
    expect(fixedLengthMs(g('PT2H'))).toBe(2 * HOUR);
    expect(fixedLengthMs(g('P1D'))).toBe(DAY);
    expect(fixedLengthMs(g('P1W'))).toBe(7 * DAY);
    expect(fixedLengthMs(g('P1M'))).toBeUndefined();
    expect(fixedLengthMs(g('P1Y'))).toBeUndefined();
  });
});

describe('bucketStarts/bucketSpans: calendar-aligned in the zone, clipped to [from, to)', () => {
  it('aligns months in UTC and clips the first and last bucket', () => {
    expect(bucketSpans(utc('2026-01-20T00:00:00Z'), utc('2026-03-05T06:00:00Z'), g('P1M'))).toEqual([
      { from: utc('2026-01-20T00:00:00Z'), to: utc('2026-02-01T00:00:00Z') },
      { from: utc('2026-02-01T00:00:00Z'), to: utc('2026-03-01T00:00:00Z') },
      { from: utc('2026-03-01T00:00:00Z'), to: utc('2026-03-05T06:00:00Z') },
    ]);
  });

  it('aligns days to local midnight of an IANA zone', () => {
    const starts = zonedBucketStarts(
      utc('2026-03-10T00:00:00Z'),
      utc('2026-03-12T00:00:00Z'),
      g('P1D'),
      'Europe/Moscow',
    );
    expect(starts).toEqual([utc('2026-03-10T00:00:00Z'), utc('2026-03-10T21:00:00Z'), utc('2026-03-11T21:00:00Z')]);
  });

  it('keeps local midnights across a DST change (a 23-hour day)', () => {
    const spans = zonedBucketSpans(utc('2026-03-28T23:00:00Z'), utc('2026-03-30T22:00:00Z'), g('P1D'), 'Europe/Berlin');
    // 2026-03-29 00:00 CET → 2026-03-30 00:00 CEST is 23 hours; the next local day is 24 again.
    expect(spans.map((s) => s.from)).toEqual([utc('2026-03-28T23:00:00Z'), utc('2026-03-29T22:00:00Z')]);
    expect(spans.map((s) => (s.to - s.from) / HOUR)).toEqual([23, 24]);
  });

  it('aligns weeks to Monday and minutes to multiples of the length', () => {
    expect(bucketStarts(utc('2026-03-11T13:47:00Z'), utc('2026-03-17T00:00:00Z'), g('P1W'))).toEqual([
      utc('2026-03-11T13:47:00Z'),
      utc('2026-03-16T00:00:00Z'),
    ]);
    expect(bucketStarts(utc('2026-03-11T13:47:00Z'), utc('2026-03-11T14:05:00Z'), g('PT15M'))).toEqual([
      utc('2026-03-11T13:47:00Z'),
      utc('2026-03-11T14:00:00Z'),
    ]);
  });

  it('aligns hours to the local hour in a half-hour zone', () => {
    const starts = zonedBucketStarts(
      utc('2026-03-10T00:00:00Z'),
      utc('2026-03-10T02:00:00Z'),
      g('PT1H'),
      'Asia/Kolkata',
    );
    expect(starts).toEqual([utc('2026-03-10T00:00:00Z'), utc('2026-03-10T00:30:00Z'), utc('2026-03-10T01:30:00Z')]);
  });

  it("in UTC, the collector's calendar arithmetic gives the buckets of the zoned (time zone library) reading", () => {
    const granularities = ['PT1M', 'PT5M', 'PT7H', 'PT1H', 'P1D', 'P2D', 'P1W', 'P2W', 'P1M', 'P3M', 'P1Y', 'PT90S'];
    fc.assert(
      fc.property(
        fc.constantFrom(...granularities),
        fc.integer({ min: utc('1999-12-01T00:00:00Z'), max: utc('2031-01-01T00:00:00Z') }),
        fc.integer({ min: 0, max: 400 * DAY }),
        (text, from, length) => {
          const to = from + (text.endsWith('Y') ? length * 10 : text.includes('T') ? length / 100 : length);
          expect(bucketSpans(from, to, g(text))).toEqual(libraryBucketSpans(from, to, g(text), 'UTC'));
        },
      ),
    );
  });

  it('covers the window without gaps and returns nothing for an empty window', () => {
    const s = zonedBucketSpans(utc('2026-03-10T08:07:00Z'), utc('2026-03-12T10:00:00Z'), g('PT7H'), 'America/New_York');
    expect(s[0]!.from).toBe(utc('2026-03-10T08:07:00Z'));
    expect(s.at(-1)!.to).toBe(utc('2026-03-12T10:00:00Z'));
    for (let i = 1; i < s.length; i++) expect(s[i]!.from).toBe(s[i - 1]!.to);
    expect(bucketSpans(5, 5, g('PT1M'))).toEqual([]);
  });
});
