import { describe, expect, it } from 'vitest';
import { EMPTY_TAG } from '../../src/points.js';
import { encodePoint } from '../../src/sink/line-protocol.js';
import { SCHEMA } from '../../src/schema/schema.js';
import {
  groupedToPoints,
  timesGroupedToPoints,
  timesToPoints,
  totalToPoints,
} from '../../src/sources/streamstat/points.js';
import { clientFor, newClock, WINDOW } from './helpers.js';
import { useSimInProcess } from '../helpers/in-process.js';

const ctx = useSimInProcess({ clock: newClock(), quotas: { streamstat: null } });
const windowStart = Date.parse(WINDOW.start);

describe('streamstat points (cdn_views, cdn_views_by_<grouping>, cdn_users_<period>)', () => {
  it('a total becomes one cdn_views point at the window start, tagged with the account filter, no users', async () => {
    const body = await clientFor(ctx.sim).total({ ...WINDOW, account: 'acme' });
    expect(body.users).toBeGreaterThan(0);
    expect(totalToPoints(body, { browser: 'Chrome' })).toEqual([
      {
        measurement: 'cdn_views',
        tags: { account: 'acme', browser: 'Chrome' },
        fields: { views: body.views, views_max: body.views_max },
        time: windowStart,
      },
    ]);
    // Without an account filter there is no account tag.
    expect(totalToPoints(await clientFor(ctx.sim).total(WINDOW))[0]!.tags).toEqual({});
  });

  it('the users series of a period keeps only users, in its own measurement', async () => {
    const body = await clientFor(ctx.sim).total({ ...WINDOW, account: 'acme' });
    expect(totalToPoints(body, { account: 'acme' }, { kind: 'users', period: 'PT1H' })).toEqual([
      {
        measurement: 'cdn_users_hourly',
        tags: { account: 'acme' },
        fields: { unique_users: body.users },
        time: windowStart,
      },
    ]);
    const grouped = await clientFor(ctx.sim).grouped('stream-types', { ...WINDOW, account: 'acme' });
    const points = groupedToPoints('stream-types', grouped, {}, { kind: 'users', period: 'P1D' });
    expect(points.map((p) => p.measurement)).toEqual(grouped.result.map(() => 'cdn_users_daily_by_stream_types'));
    expect(points.map((p) => p.fields)).toEqual(grouped.result.map((e) => ({ unique_users: e.users })));
  });

  it(
    'grouped elements become one point each in cdn_views_by_<grouping>, ' +
      'keyed by their result keys; only returned fields are written',
    async () => {
      const body = await clientFor(ctx.sim).grouped('streams', { ...WINDOW, fields: ['views'] });
      const points = groupedToPoints('streams', body);
      expect(points).toHaveLength(body.result.length);
      for (const [i, p] of points.entries()) {
        expect(p.measurement).toBe('cdn_views_by_streams');
        expect(p.tags).toEqual({ stream: body.result[i]!.stream, account: body.result[i]!.account });
        expect(p.fields).toEqual({ views: body.result[i]!.views });
        expect(p.time).toBe(windowStart);
      }
      const types = groupedToPoints('stream-types', await clientFor(ctx.sim).grouped('stream-types', WINDOW));
      expect(
        types.every((p) => p.measurement === 'cdn_views_by_stream_types' && p.tags.stream_type !== undefined),
      ).toBe(true);
      // /accounts with the account filter answers the account's total: the same series as cdn_views.
      const accounts = groupedToPoints(
        'accounts',
        await clientFor(ctx.sim).grouped('accounts', { ...WINDOW, account: 'acme' }),
      );
      const total = totalToPoints(await clientFor(ctx.sim).total({ ...WINDOW, account: 'acme' }));
      expect(accounts).toEqual(total);
    },
  );

  it('buckets become points at the bucket starts; grouped buckets one per bucket and element', async () => {
    const times = await clientFor(ctx.sim).times({ ...WINDOW, granularity: 'PT15M' });
    expect(timesToPoints(times).map((p) => p.time)).toEqual([0, 15, 30, 45].map((m) => windowStart + m * 60_000));
    const grouped = await clientFor(ctx.sim).timesGrouped('platforms', {
      ...WINDOW,
      granularity: 'PT15M',
      account: 'globex',
    });
    const points = timesGroupedToPoints('platforms', grouped);
    expect(points).toHaveLength(grouped.result.reduce((a, b) => a + b.result.length, 0));
    expect(points[0]!.measurement).toBe('cdn_views_by_platforms');
    expect(points[0]!.tags).toEqual({ account: 'globex', platform: grouped.result[0]!.result[0]!.platform });
    expect(new Set(points.map((p) => p.time)).size).toBe(4);
  });

  it('empty tag values stay empty in the point; the sink writes them as EMPTY_TAG', () => {
    const body = {
      start: WINDOW.start,
      end: WINDOW.end,
      fields: ['views' as const],
      result: [{ browser: '', views: 3 }],
    };
    const [point] = groupedToPoints('browsers', body);
    expect(point!.tags.browser).toBe('');
    expect(encodePoint(point!, 's', { schema: SCHEMA })).toContain(`browser=${EMPTY_TAG}`);
  });

  it('points use only tags and fields of their measurement schema, fields as integers', async () => {
    const body = await clientFor(ctx.sim).grouped('streams', WINDOW);
    const users = { kind: 'users', period: 'PT1H' } as const;
    const points = [
      ...groupedToPoints('streams', body),
      ...groupedToPoints('streams', body, {}, users),
      ...totalToPoints(await clientFor(ctx.sim).total(WINDOW)),
      ...totalToPoints(await clientFor(ctx.sim).total(WINDOW), {}, users),
    ];
    expect(new Set(points.map((p) => p.measurement))).toEqual(
      new Set(['cdn_views_by_streams', 'cdn_users_hourly_by_streams', 'cdn_views', 'cdn_users_hourly']),
    );
    for (const p of points) {
      const schema = SCHEMA.get(p.measurement)!;
      expect(schema, p.measurement).toBeDefined();
      for (const tag of Object.keys(p.tags)) expect(schema.tags).toHaveProperty(tag);
      for (const [field, value] of Object.entries(p.fields)) {
        expect(schema.fields[field]?.type).toBe('integer');
        expect(Number.isInteger(value)).toBe(true);
      }
    }
  });
});
