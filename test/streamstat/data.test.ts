import { describe, expect, it } from 'vitest';
import type { StreamstatQuery } from '../../src/sources/streamstat/params.js';
import type { StreamstatElement } from '../../src/sources/streamstat/schemas.js';
import { STREAMSTAT_GROUPINGS } from '../../src/spec/streamstat.js';
import { clientFor, rawGet, WINDOW, newClock } from './helpers.js';
import { useSimInProcess } from '../helpers/in-process.js';

// Many calls at one frozen instant: the quota has its own test (quota.test.ts). Four accounts, many streams: paging.
const ctx = useSimInProcess({
  clock: newClock(),
  quotas: { streamstat: null },
  world: { accounts: 4, streamsPerAccount: 6 },
});
const sumOf = (rows: StreamstatElement[], field: 'views' | 'users') => rows.reduce((a, r) => a + (r[field] ?? 0), 0);

describe('streamstat data: groupings add up', () => {
  const filters: Array<[string, Partial<StreamstatQuery>]> = [
    ['no filter', {}],
    ['account', { account: 'globex' }],
    ['browser and platform', { browser: 'Chrome', platform: 'Android' }],
    ['country and region', { country: 'RU', region: 'MOW' }],
    ['stream types', { streamType: ['live', 'vod'] }],
  ];
  for (const [name, filter] of filters) {
    it(`grouped views and users sum to the total of the same window (${name})`, async () => {
      const client = clientFor(ctx.sim);
      const q: StreamstatQuery = { ...WINDOW, ...filter };
      const total = await client.total(q);
      expect(total.views).toBeGreaterThan(0);
      for (const grouping of STREAMSTAT_GROUPINGS) {
        const { result } = await client.grouped(grouping, { ...q, limit: 1000 });
        expect(sumOf(result, 'views'), grouping).toBe(total.views);
        expect(sumOf(result, 'users'), grouping).toBe(total.users);
        for (const row of result) {
          expect(row.views_max!, grouping).toBeLessThanOrEqual(row.views!);
          expect(row.views_max!, grouping).toBeLessThanOrEqual(total.views_max!);
          expect(row.users!, grouping).toBeLessThanOrEqual(row.views!);
        }
      }
    });
  }

  it('the total peak is at least the largest group peak and at most the sum of the group peaks', async () => {
    const client = clientFor(ctx.sim);
    const total = await client.total(WINDOW);
    const { result } = await client.grouped('streams', { ...WINDOW, limit: 1000 });
    const peaks = result.map((r) => r.views_max!);
    expect(total.views_max).toBeGreaterThanOrEqual(Math.max(...peaks));
    expect(total.views_max).toBeLessThanOrEqual(peaks.reduce((a, b) => a + b, 0));
  });

  it('answers are deterministic', async () => {
    const client = clientFor(ctx.sim);
    expect(await client.grouped('browsers', WINDOW)).toEqual(await client.grouped('browsers', WINDOW));
  });

  it('returns only the requested fields, as a list, and echoes limit and sort', async () => {
    const client = clientFor(ctx.sim);
    const total = await client.total({ ...WINDOW, fields: ['users', 'views'] });
    expect(total.fields).toEqual(['users', 'views']);
    expect(total.views_max).toBeUndefined();
    expect(total.users).toBeGreaterThan(0);
    const grouped = await client.grouped('streams', { ...WINDOW, fields: ['views'], sort: '-views', limit: 3 });
    expect(grouped).toMatchObject({ limit: 3, sort: '-views', fields: ['views'] });
    expect(grouped.result).toHaveLength(3);
    expect(grouped.result.map((r) => r.views!)).toEqual([...grouped.result.map((r) => r.views!)].sort((a, b) => b - a));
    expect(grouped.result[0]).not.toHaveProperty('users');
  });
});

describe('streamstat data: filters', () => {
  it('repeated stream and stream_type select the union, sent as repeated parameters', async () => {
    const client = clientFor(ctx.sim);
    const account = ctx.sim.world.accounts[0]!;
    const [a, b] = account.streams;
    const both = await client.grouped('streams', { ...WINDOW, account: account.name, stream: [a!.name, b!.name] });
    expect(both.result.map((r) => r.stream).sort()).toEqual([a!.name, b!.name].sort());
    const one = await client.total({ ...WINDOW, account: account.name, stream: a!.name });
    const two = await client.total({ ...WINDOW, account: account.name, stream: b!.name });
    const sum = await client.total({ ...WINDOW, account: account.name, stream: [a!.name, b!.name] });
    expect(sum.views).toBe(one.views! + two.views!);

    const types = await client.grouped('stream-types', { ...WINDOW, streamType: ['live', 'unknown'] });
    expect(types.result.map((r) => r.stream_type).every((t) => t === 'live' || t === 'unknown')).toBe(true);
    const raw = await rawGet(ctx.sim, '/stream-types', { ...WINDOW, stream_type: ['vod'] });
    expect((raw.body as { result: StreamstatElement[] }).result.map((r) => r.stream_type)).toEqual(['vod']);
  });

  it('a stream the account lacks gives an empty result and zero totals', async () => {
    const client = clientFor(ctx.sim);
    const account = ctx.sim.world.accounts[0]!.name;
    expect((await client.grouped('streams', { ...WINDOW, account, stream: 'no such stream' })).result).toEqual([]);
    expect(await client.total({ ...WINDOW, account, stream: 'no such stream' })).toMatchObject({
      views: 0,
      users: 0,
      views_max: 0,
    });
  });

  it('only the accounts of the token are counted', async () => {
    const client = clientFor(ctx.sim);
    const accounts = (await client.grouped('accounts', WINDOW)).result.map((r) => r.account);
    expect(accounts.sort()).toEqual([...ctx.sim.accounts].sort());
    ctx.sim.addToken('globex-only', { accounts: ['globex'] });
    const limited = await rawGet(ctx.sim, '/accounts', { ...WINDOW, cdnauthtoken: 'globex-only' }, { token: 'none' });
    expect((limited.body as { result: StreamstatElement[] }).result.map((r) => r.account)).toEqual(['globex']);
  });
});

describe('streamstat data: paging', () => {
  it('pages() walks offset+limit to the end: every stream once, in key order', async () => {
    const client = clientFor(ctx.sim);
    const before = ctx.sim.stats.apis.streamstat.requests;
    const pages: StreamstatElement[][] = [];
    for await (const page of client.pages('streams', WINDOW, 5)) pages.push(page);
    const all = (await client.grouped('streams', { ...WINDOW, limit: 1000 })).result;
    expect(all.length).toBe(24);
    expect(pages.map((p) => p.length)).toEqual([5, 5, 5, 5, 4]);
    expect(pages.flat()).toEqual(all);
    // Five pages plus the one full call; a short page ends the walk without an extra request.
    expect(ctx.sim.stats.apis.streamstat.requests - before).toBe(6);
  });

  it('pages() with an exact multiple stops after the first empty page', async () => {
    const client = clientFor(ctx.sim);
    const pages: StreamstatElement[][] = [];
    for await (const page of client.pages('streams', { ...WINDOW, sort: '-users', offset: 4 }, 10)) pages.push(page);
    expect(pages.map((p) => p.length)).toEqual([10, 10]);
    const users = pages.flat().map((r) => r.users!);
    expect(users).toEqual([...users].sort((a, b) => b - a));
  });

  it('the default limit is the simulator setting', async () => {
    ctx.sim.settings.defaultLimit = 7;
    try {
      expect((await clientFor(ctx.sim).grouped('streams', WINDOW)).result).toHaveLength(7);
    } finally {
      ctx.sim.settings.defaultLimit = 100;
    }
  });
});
