import { describe, expect, it } from 'vitest';
import { EMPTY_TAG } from '../../src/points.js';
import { encodePoint } from '../../src/sink/line-protocol.js';
import { SCHEMA } from '../../src/schema.js';
import { groupedToPoints, timesGroupedToPoints, timesToPoints, totalToPoints } from '../../src/sources/streamstat/points.js';
import { useSimulator } from '../helpers/sim.js';
import { clientFor, newClock, WINDOW } from './helpers.js';

const ctx = useSimulator({ clock: newClock(), quotas: { streamstat: null } });
const windowStart = Date.parse(WINDOW.start);

describe('streamstat points (cdn_views)', () => {
  it('a total becomes one point at the window start, tagged grouping=total and the account filter', async () => {
    const body = await clientFor(ctx.sim).total({ ...WINDOW, account: 'acme' });
    expect(totalToPoints(body, { browser: 'Chrome' })).toEqual([
      {
        measurement: 'cdn_views',
        tags: { grouping: 'total', account: 'acme', browser: 'Chrome' },
        fields: { views: body.views, users: body.users, views_max: body.views_max },
        time: windowStart,
      },
    ]);
    // Without an account filter there is no account tag.
    expect(totalToPoints(await clientFor(ctx.sim).total(WINDOW))[0]!.tags).toEqual({ grouping: 'total' });
  });

  it('grouped elements become one point each, keyed by their result keys; only returned fields are written', async () => {
    const body = await clientFor(ctx.sim).grouped('streams', { ...WINDOW, fields: ['views'] });
    const points = groupedToPoints('streams', body);
    expect(points).toHaveLength(body.result.length);
    for (const [i, p] of points.entries()) {
      expect(p.tags).toEqual({ grouping: 'streams', stream: body.result[i]!.stream, account: body.result[i]!.account });
      expect(p.fields).toEqual({ views: body.result[i]!.views });
      expect(p.time).toBe(windowStart);
    }
    const types = groupedToPoints('stream-types', await clientFor(ctx.sim).grouped('stream-types', WINDOW));
    expect(types.every((p) => p.tags.grouping === 'stream-types' && p.tags.stream_type !== undefined)).toBe(true);
  });

  it('buckets become points at the bucket starts; grouped buckets one per bucket and element', async () => {
    const times = await clientFor(ctx.sim).times({ ...WINDOW, granularity: 'PT15M' });
    expect(timesToPoints(times).map((p) => p.time)).toEqual([0, 15, 30, 45].map((m) => windowStart + m * 60_000));
    const grouped = await clientFor(ctx.sim).timesGrouped('platforms', { ...WINDOW, granularity: 'PT15M', account: 'globex' });
    const points = timesGroupedToPoints('platforms', grouped);
    expect(points).toHaveLength(grouped.result.reduce((a, b) => a + b.result.length, 0));
    expect(points[0]!.tags).toMatchObject({ grouping: 'platforms', account: 'globex', platform: grouped.result[0]!.result[0]!.platform });
    expect(new Set(points.map((p) => p.time)).size).toBe(4);
  });

  it('empty tag values stay empty in the point; the sink writes them as EMPTY_TAG', () => {
    const body = { start: WINDOW.start, end: WINDOW.end, fields: ['views' as const], result: [{ browser: '', views: 3 }] };
    const [point] = groupedToPoints('browsers', body);
    expect(point!.tags.browser).toBe('');
    expect(encodePoint(point!)).toContain(`browser=${EMPTY_TAG}`);
  });

  it('points use only tags and fields of the cdn_views schema, fields as integers', async () => {
    const schema = SCHEMA.get('cdn_views')!;
    expect(schema).toBeDefined();
    const body = await clientFor(ctx.sim).grouped('streams', WINDOW);
    for (const p of [...groupedToPoints('streams', body), ...totalToPoints(await clientFor(ctx.sim).total(WINDOW))]) {
      for (const tag of Object.keys(p.tags)) expect(schema.tags).toHaveProperty(tag);
      for (const [field, value] of Object.entries(p.fields)) {
        expect(schema.fields[field]?.type).toBe('integer');
        expect(Number.isInteger(value)).toBe(true);
      }
    }
  });
});
