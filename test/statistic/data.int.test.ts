import { describe, expect, it } from 'vitest';
import { minuteTraffic } from '../../src/sim/model/traffic.js';
import { startSimulator } from '../../src/sim/server.js';
import type { StatisticQuery } from '../../src/sources/statistic/params.js';
import type { StatisticRow } from '../../src/sources/statistic/schemas.js';
import type { StatisticGrouping } from '../../src/spec/statistic.js';
import { DAY, HOUR, MINUTE } from '../../src/time.js';
import { useSimulator } from '../helpers/sim.js';
import { clientFor, EVERY_GROUPING, FILTER_SETS, newClock, NOW, WINDOW } from './helpers.js';

const ctx = useSimulator({ clock: newClock(), quotas: { statistic: null } });

const sum = (rows: ReadonlyArray<{ traffic?: number; hits?: number }>, key: 'traffic' | 'hits') =>
  rows.reduce((a, r) => a + r[key]!, 0);

async function allRows(grouping: StatisticGrouping, q: StatisticQuery, pageSize = 1000): Promise<StatisticRow[]> {
  const rows: StatisticRow[] = [];
  for await (const page of clientFor(ctx.sim).pages(grouping, q, pageSize)) rows.push(...page);
  return rows;
}

describe('values derive from the traffic model', () => {
  it('total = sums of the model: traffic bytes, hits requests, unrounded cache_ratio, peak bits/s', async () => {
    const { world } = ctx.sim;
    const account = world.accounts[0]!;
    const res = await clientFor(ctx.sim).total({ ...WINDOW, account: account.name });
    let bytes = 0;
    let requests = 0;
    let cached = 0;
    let peak = 0;
    for (let t = Date.parse(WINDOW.start); t < Date.parse(WINDOW.end); t += MINUTE) {
      let minuteBytes = 0;
      for (const r of account.resources) {
        const mt = minuteTraffic(world, account.name, r, t);
        minuteBytes += mt.bytes;
        requests += mt.requests;
        cached += mt.cachedBytes;
      }
      bytes += minuteBytes;
      peak = Math.max(peak, minuteBytes);
    }
    expect(res.body).toMatchObject({
      traffic: bytes,
      hits: requests,
      cache_ratio: cached / bytes,
      bandwidth: Math.floor((peak * 8) / 60),
    });
  });

  it('resource, host and service filters select resources; all accounts of the token without account', async () => {
    const client = clientFor(ctx.sim);
    const [a, b] = ctx.sim.world.accounts;
    const all = (await client.total(WINDOW)).body.traffic!;
    const perAccount = await Promise.all(
      [a!, b!].map(async (x) => (await client.total({ ...WINDOW, account: x.name })).body.traffic!),
    );
    expect(all).toBe(perAccount[0]! + perAccount[1]!);
    const resource = a!.resources[1]!;
    const byId = (await client.total({ ...WINDOW, resource: resource.id })).body.traffic;
    const byHost = (await client.total({ ...WINDOW, host: resource.cname })).body.traffic;
    expect(byId).toBe(byHost);
    expect(byId).toBeGreaterThan(0);
    const media = (await client.total({ ...WINDOW, service: 'media' })).body.traffic!;
    const statics = (await client.total({ ...WINDOW, service: 'static' })).body.traffic!;
    expect(media + statics).toBe(all);
  });
});

describe('grouped traffic and hits sum exactly to the total of the same filters', () => {
  // /hosts and /paths require an account (and a host), which these filter sets do not give.
  const groupings = EVERY_GROUPING.filter((g) => g !== 'hosts' && g !== 'paths');
  const filterSets = [...FILTER_SETS, { region: 'US-CA', custom: 'campaign=spring' }];

  it('for every grouping and several filter sets', async () => {
    const client = clientFor(ctx.sim);
    for (const filters of filterSets) {
      const total = (await client.total({ ...WINDOW, ...filters })).body;
      for (const g of groupings) {
        if (g === 'countries' && filters.region) continue;
        const rows = await allRows(g, { ...WINDOW, ...filters });
        expect(sum(rows, 'traffic'), `${g} ${JSON.stringify(filters)}`).toBe(total.traffic);
        expect(sum(rows, 'hits'), `${g} ${JSON.stringify(filters)}`).toBe(total.hits);
      }
    }
  });

  it('/hosts and /paths sum to the total of their account (and host)', async () => {
    const client = clientFor(ctx.sim);
    const account = ctx.sim.world.accounts[1]!;
    const host = account.resources[0]!.cname;
    const hosts = await allRows('hosts', { ...WINDOW, account: account.name });
    expect(hosts.map((r) => r.host).sort()).toEqual(account.resources.map((r) => r.cname).sort());
    expect(sum(hosts, 'traffic')).toBe((await client.total({ ...WINDOW, account: account.name })).body.traffic);
    const paths = await allRows('paths', { ...WINDOW, account: account.name, host });
    expect(sum(paths, 'hits')).toBe((await client.total({ ...WINDOW, account: account.name, host })).body.hits);
  });

  it("a filter takes exactly the group's share: /countries RU = / with country=RU", async () => {
    const client = clientFor(ctx.sim);
    const ru = (await allRows('countries', WINDOW)).find((r) => r.country === 'RU')!;
    const filtered = (await client.total({ ...WINDOW, country: 'RU' })).body;
    expect({ traffic: ru.traffic, hits: ru.hits }).toEqual({ traffic: filtered.traffic, hits: filtered.hits });
    const regions = await allRows('regions', { ...WINDOW, country: 'DE' });
    expect(new Set(regions.map((r) => r.country))).toEqual(new Set(['DE']));
    expect(regions.every((r) => r.cache_ratio! > 0 && r.cache_ratio! <= 1 && r.bandwidth! > 0)).toBe(true);
    const unknown = (await client.total({ ...WINDOW, country: 'ZZ' })).body;
    expect(unknown).toMatchObject({ traffic: 0, hits: 0 });
  });
});

describe('paging', () => {
  it('pages() exhausts results across pages without gaps or repeats', async () => {
    const everything = await allRows('regions', WINDOW, 1000);
    expect(everything.length).toBeGreaterThan(5);
    const before = ctx.sim.stats.apis.statistic.requests;
    const paged = await allRows('regions', WINDOW, 2);
    expect(paged).toEqual(everything);
    expect(ctx.sim.stats.apis.statistic.requests - before).toBe(Math.floor(everything.length / 2) + 1);
  });

  it('sort orders the rows ([+-]field)', async () => {
    const client = clientFor(ctx.sim);
    const desc = (await client.grouped('browsers', { ...WINDOW, sort: '-traffic' })).body.result.map((r) => r.traffic!);
    expect(desc).toEqual([...desc].sort((a, b) => b - a));
    const asc = (await client.grouped('codes', { ...WINDOW, sort: '+hits' })).body.result.map((r) => r.hits!);
    expect(asc).toEqual([...asc].sort((a, b) => a - b));
  });

  it('timesPages() pages until every bucket returned fewer than the limit', async () => {
    const client = clientFor(ctx.sim);
    const q = { ...WINDOW, granularity: 'PT1H' };
    const full = (await client.timesGrouped('platforms', q)).body.result;
    const perBucket = full.map(() => [] as StatisticRow[]);
    let pages = 0;
    for await (const page of client.timesPages('platforms', q, 4)) {
      pages++;
      page.forEach((bucket, i) => perBucket[i]!.push(...bucket.result));
    }
    expect(perBucket).toEqual(full.map((b) => b.result));
    expect(pages).toBe(Math.ceil(Math.max(...full.map((b) => b.result.length)) / 4));
  });
});

describe('/times', () => {
  it('buckets sum to the total of the window, also across a time zone with clipped buckets', async () => {
    const client = clientFor(ctx.sim);
    const q = {
      start: '2026-03-09T20:30:00Z',
      end: '2026-03-11T03:00:00Z',
      resource: ctx.sim.world.accounts[0]!.resources[0]!.id,
    };
    const total = (await client.total(q)).body;
    for (const [granularity, timezone] of [
      ['PT1H', undefined],
      ['P1D', 'Asia/Tokyo'],
      ['PT15M', 'Asia/Kolkata'],
    ] as const) {
      const times = (await client.times({ ...q, granularity, timezone })).body;
      expect(times.granularity).toBe(granularity);
      expect(sum(times.result, 'traffic'), granularity).toBe(total.traffic);
      expect(sum(times.result, 'hits'), granularity).toBe(total.hits);
      expect(Math.max(...times.result.map((b) => b.bandwidth!))).toBe(total.bandwidth);
    }
    const tokyo = (await client.times({ ...q, granularity: 'P1D', timezone: 'Asia/Tokyo' })).body;
    expect(tokyo.result.map((b) => b.start)).toEqual(['2026-03-10T05:30:00+09:00', '2026-03-11T00:00:00+09:00']);
    expect(tokyo.start).toBe('2026-03-10T05:30:00+09:00');
  });

  it('offset/limit on /times page through the buckets; without limit every bucket is served', async () => {
    const client = clientFor(ctx.sim);
    const q = { start: '2026-03-10T00:00:00Z', end: '2026-03-11T12:00:00Z', granularity: 'PT15M' };
    const all = (await client.times(q)).body.result;
    expect(all).toHaveLength(144);
    const page = (await client.times({ ...q, offset: 140, limit: 10 })).body.result;
    expect(page).toEqual(all.slice(140));
  });

  it('each /times/<g> bucket holds the groups of that bucket, adding up to the /times bucket', async () => {
    const client = clientFor(ctx.sim);
    const q = { ...WINDOW, granularity: 'PT30M', limit: 1000 };
    const times = (await client.times(q)).body.result;
    const grouped = (await client.timesGrouped('codes', q)).body.result;
    expect(grouped.map((b) => b.start)).toEqual(times.map((b) => b.start));
    grouped.forEach((bucket, i) => expect(sum(bucket.result, 'traffic')).toBe(times[i]!.traffic));
  });

  it('serves a 7-day PT1M /times/<g> over the whole world', async () => {
    const res = await clientFor(ctx.sim).timesGrouped('countries', {
      start: new Date(NOW - 8 * DAY),
      end: new Date(NOW - DAY),
      granularity: 'PT1M',
      fields: ['traffic'],
    });
    expect(res.body.result).toHaveLength(7 * 1440);
    expect(res.body.result[0]!.result.map((r) => Object.keys(r).sort())[0]).toEqual([
      'country',
      'country_name',
      'traffic',
    ]);
  });
});

describe('late data (lag up to an hour)', () => {
  it('the last hour keeps growing and reaches its final value once the lag has passed', async () => {
    const clock = newClock();
    const sim = await startSimulator({ clock, quotas: { statistic: null } });
    try {
      const client = clientFor(sim);
      const q = { start: new Date(NOW - HOUR), end: new Date(NOW) };
      const seen: number[] = [];
      for (let i = 0; i < 5; i++) {
        seen.push((await client.total(q)).body.traffic!);
        clock.advance(20 * MINUTE);
      }
      // at NOW + 80 minutes every minute is older than its lag: final
      const final = seen[4]!;
      expect(seen[0]).toBeLessThan(seen[1]!);
      expect(seen[1]).toBeLessThan(seen[2]!);
      expect(seen[2]).toBeLessThan(seen[3]!);
      expect(seen[3]).toBeLessThanOrEqual(final);
      clock.advance(DAY);
      expect((await client.total(q)).body.traffic).toBe(final);
      // the final value is what a simulator whose clock was always late enough serves
      const late = await startSimulator({ clock: newClock(NOW + 2 * HOUR), quotas: { statistic: null } });
      try {
        expect((await clientFor(late).total(q)).body.traffic).toBe(final);
      } finally {
        await late.close();
      }
      // a minute that has not ended yet has no data at all
      clock.set(NOW);
      expect((await client.total({ start: new Date(NOW - MINUTE), end: new Date(NOW + MINUTE) })).body.traffic).toBe(0);
    } finally {
      await sim.close();
    }
  });
});
