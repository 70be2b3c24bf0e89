import { describe, expect, it } from 'vitest';
import { bucketSpans, bucketStartAt, fixedLengthMs } from '../../src/spec/granularity.js';
import {
  STREAMSTAT_GRANULARITIES,
  STREAMSTAT_GROUPINGS,
  streamstatGranularity as g,
} from '../../src/spec/streamstat.js';
import { MINUTE } from '../../src/time.js';
import { clientFor, NOW, newClock, WINDOW } from './helpers.js';
import { useSimInProcess } from '../helpers/in-process.js';

const clock = newClock();
const ctx = useSimInProcess({ clock, quotas: { streamstat: null } });
const utc = (s: string) => Date.parse(s);

describe('streamstat granularity table (UTC alignment)', () => {
  it('aligns minutes, hours and days to the epoch, weeks to Monday, months and years to the calendar', () => {
    const t = utc('2026-03-11T13:47:00Z'); // a Wednesday
    expect(bucketStartAt(t, g('PT15M'))).toBe(utc('2026-03-11T13:45:00Z'));
    expect(bucketStartAt(t, g('PT1H'))).toBe(utc('2026-03-11T13:00:00Z'));
    expect(bucketStartAt(t, g('P1D'))).toBe(utc('2026-03-11T00:00:00Z'));
    expect(bucketStartAt(t, g('P1W'))).toBe(utc('2026-03-09T00:00:00Z'));
    expect(bucketStartAt(utc('2026-03-09T00:00:00Z'), g('P1W'))).toBe(utc('2026-03-09T00:00:00Z'));
    expect(bucketStartAt(t, g('P1M'))).toBe(utc('2026-03-01T00:00:00Z'));
    expect(bucketStartAt(t, g('P1Y'))).toBe(utc('2026-01-01T00:00:00Z'));
  });

  it('gives the step of fixed-length granularities only', () => {
    expect(fixedLengthMs(g('PT5M'))).toBe(5 * MINUTE);
    expect(fixedLengthMs(g('P1D'))).toBe(1440 * MINUTE);
    expect(fixedLengthMs(g('P1W'))).toBe(7 * 1440 * MINUTE);
    expect(fixedLengthMs(g('P1M'))).toBeUndefined();
  });

  it('clips the first and last bucket to the window and covers it without gaps', () => {
    const spans = bucketSpans(utc('2026-01-20T00:00:00Z'), utc('2026-03-05T06:00:00Z'), g('P1M'));
    expect(spans).toEqual([
      { from: utc('2026-01-20T00:00:00Z'), to: utc('2026-02-01T00:00:00Z') },
      { from: utc('2026-02-01T00:00:00Z'), to: utc('2026-03-01T00:00:00Z') },
      { from: utc('2026-03-01T00:00:00Z'), to: utc('2026-03-05T06:00:00Z') },
    ]);
    for (const granularity of STREAMSTAT_GRANULARITIES) {
      const s = bucketSpans(utc('2026-03-10T08:07:00Z'), utc('2026-03-10T10:00:00Z'), g(granularity));
      expect(s[0]!.from, granularity).toBe(utc('2026-03-10T08:07:00Z'));
      expect(s.at(-1)!.to, granularity).toBe(utc('2026-03-10T10:00:00Z'));
      for (let i = 1; i < s.length; i++) expect(s[i]!.from, granularity).toBe(s[i - 1]!.to);
    }
  });
});

describe('streamstat buckets from the simulator', () => {
  it('/ with granularity: one bucket per step, views sum to the window total', async () => {
    const client = clientFor(ctx.sim);
    const total = await client.total(WINDOW);
    const times = await client.times({ ...WINDOW, granularity: 'PT5M' });
    expect(times.granularity).toBe('PT5M');
    expect(times.result).toHaveLength(12);
    expect(times.result[0]).toMatchObject({ start: '2026-03-10T08:00:00Z', end: '2026-03-10T08:05:00Z' });
    expect(times.result.reduce((a, b) => a + b.views!, 0)).toBe(total.views);
    expect(Math.max(...times.result.map((b) => b.views_max!))).toBe(total.views_max);
  });

  it('grouping endpoints with granularity: buckets of groups, each bucket adding up to the bucket total', async () => {
    const client = clientFor(ctx.sim);
    const times = await client.times({ ...WINDOW, granularity: 'PT15M' });
    for (const grouping of STREAMSTAT_GROUPINGS) {
      const grouped = await client.timesGrouped(grouping, { ...WINDOW, granularity: 'PT15M', limit: 1000 });
      expect(
        grouped.result.map((b) => b.start),
        grouping,
      ).toEqual(times.result.map((b) => b.start));
      grouped.result.forEach((bucket, i) => {
        expect(
          bucket.result.reduce((a, r) => a + r.views!, 0),
          grouping,
        ).toBe(times.result[i]!.views);
        expect(
          bucket.result.reduce((a, r) => a + r.users!, 0),
          grouping,
        ).toBe(times.result[i]!.users);
      });
    }
  });

  it('sort and limit apply within each bucket', async () => {
    const grouped = await clientFor(ctx.sim).timesGrouped('browsers', {
      ...WINDOW,
      granularity: 'PT1H',
      sort: '-views',
      limit: 2,
    });
    expect(grouped).toMatchObject({ limit: 2, sort: '-views' });
    expect(grouped.result).toHaveLength(1);
    expect(grouped.result[0]!.result.map((r) => r.browser)).toEqual(['Chrome', 'Safari']);
  });

  it('a day at P1D and at PT1H agree', async () => {
    const client = clientFor(ctx.sim);
    const day = { start: '2026-03-09T00:00:00Z', end: '2026-03-10T00:00:00Z' };
    const daily = await client.times({ ...day, granularity: 'P1D' });
    const hourly = await client.times({ ...day, granularity: 'PT1H' });
    expect(daily.result).toHaveLength(1);
    expect(hourly.result).toHaveLength(24);
    expect(hourly.result.reduce((a, b) => a + b.views!, 0)).toBe(daily.result[0]!.views);
  });

  it('recent minutes lag: values grow until streamstatLagMs after the minute ends, then stay', async () => {
    const client = clientFor(ctx.sim);
    const lag = ctx.sim.settings.streamstatLagMs;
    const recent = { start: new Date(NOW - 10 * MINUTE).toISOString(), end: new Date(NOW).toISOString() };
    const seen: number[] = [];
    try {
      for (const step of [0, lag / 2, lag, lag]) {
        clock.advance(step);
        seen.push((await client.total(recent)).views!);
      }
    } finally {
      clock.set(NOW);
    }
    expect(seen[0]).toBeLessThan(seen[1]!);
    expect(seen[1]).toBeLessThan(seen[2]!);
    expect(seen[2]).toBe(seen[3]);
    // The future holds nothing yet.
    const future = await client.total({
      start: new Date(NOW).toISOString(),
      end: new Date(NOW + 10 * MINUTE).toISOString(),
    });
    expect(future.views).toBe(0);
  });
});
