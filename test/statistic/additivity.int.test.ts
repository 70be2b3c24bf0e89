import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StatisticQuery } from '../../src/sources/statistic/params.js';
import type { StatisticRow } from '../../src/sources/statistic/schemas.js';
import { GROUPING_KEYS, type StatisticGrouping } from '../../src/spec/statistic.js';
import { DAY, HOUR, MINUTE } from '../../src/time.js';
import { useSimulator } from '../helpers/sim.js';
import { clientFor, EVERY_GROUPING, FILTER_SETS, newClock, NOW } from './helpers.js';

/**
 * The simulator's data adds up exactly, as the README promises. For any range, granularity, time zone,
 * grouping and filter: the buckets of /times/<g> add up to /<g> per group, the groups of /<g> to the total /, and the
 * cached bytes (round(traffic × cache_ratio), what the collector stores as cached_traffic) add up the same way.
 */
const ctx = useSimulator({ clock: newClock(), quotas: { statistic: null }, world: { accounts: 3 } });

type Sums = { traffic: number; hits: number; cached: number };
const cachedOf = (r: { traffic?: number; cache_ratio?: number }) => Math.round(r.traffic! * r.cache_ratio!);
const add = (s: Sums, r: StatisticRow | { traffic?: number; hits?: number; cache_ratio?: number }): Sums => ({
  traffic: s.traffic + r.traffic!,
  hits: s.hits + r.hits!,
  cached: s.cached + cachedOf(r),
});
const ZERO: Sums = { traffic: 0, hits: 0, cached: 0 };
const keyOf = (g: StatisticGrouping, row: StatisticRow) =>
  GROUPING_KEYS[g].map((k) => String(row[k as keyof StatisticRow])).join('|');

const GRANULARITIES = [
  { granularity: 'PT5M' },
  { granularity: 'PT15M', timezone: 'Asia/Kolkata' },
  { granularity: 'PT1H' },
  { granularity: 'P1D', timezone: 'Asia/Tokyo' },
] as const;

describe('the simulator adds up exactly (property)', () => {
  it('/times/<g> buckets = /<g> per group; /<g> groups = /; any range, granularity, grouping, filter', async () => {
    const client = clientFor(ctx.sim);
    const account = ctx.sim.world.accounts[1]!;
    const host = account.resources[0]!.cname;
    const scope = (g: StatisticGrouping): Partial<StatisticQuery> =>
      g === 'hosts' ? { account: account.name } : g === 'paths' ? { account: account.name, host } : {};
    const range = fc.record({
      startMinute: fc.integer({ min: 0, max: 3 * 1440 }),
      minutes: fc.integer({ min: 1, max: 20 * 60 }),
      g: fc.constantFrom(...EVERY_GROUPING),
      filters: fc.constantFrom(...FILTER_SETS),
      times: fc.constantFrom(...GRANULARITIES),
    });
    await fc.assert(
      fc.asyncProperty(range, async ({ startMinute, minutes, g, filters, times }) => {
        const start = NOW - 5 * DAY + startMinute * MINUTE;
        const q = { start, end: start + minutes * MINUTE, ...filters, ...scope(g) };
        const label = `${g} ${JSON.stringify({ ...q, ...times })}`;
        const total = (await client.total(q)).body;
        const rows = (await client.grouped(g, { ...q, limit: 1000 })).body.result;
        const perGroup = new Map(rows.map((r) => [keyOf(g, r), add(ZERO, r)]));
        const overGroups = rows.reduce(add, ZERO);
        expect(overGroups, label).toEqual(add(ZERO, total));
        const buckets = (await client.timesGrouped(g, { ...q, ...times, limit: 1000 })).body.result;
        const fromBuckets = new Map<string, Sums>();
        for (const bucket of buckets)
          for (const r of bucket.result) fromBuckets.set(keyOf(g, r), add(fromBuckets.get(keyOf(g, r)) ?? ZERO, r));
        expect(fromBuckets, label).toEqual(perGroup);
        const plain = (await client.times({ ...q, ...times })).body.result;
        expect(plain.reduce(add, ZERO), label).toEqual(overGroups);
      }),
      { numRuns: 25, seed: 12 },
    );
  }, 120_000);

  it('/times/accounts answers each account exactly what /times?account=X answers, bucket by bucket', async () => {
    const client = clientFor(ctx.sim);
    const q = { start: NOW - 2 * DAY + 7 * MINUTE, end: NOW - DAY - 3 * HOUR, granularity: 'PT1H' };
    const shared = (await client.timesGrouped('accounts', q)).body.result;
    expect(shared.length).toBe(21);
    for (const { name } of ctx.sim.world.accounts) {
      const own = (await client.times({ ...q, account: name })).body.result;
      const rows = shared.map((b) => b.result.find((r) => r.account === name));
      expect(
        rows.every((r) => r !== undefined),
        name,
      ).toBe(true);
      expect(
        rows.map((r) => ({ ...r, account: undefined })),
        name,
      ).toEqual(own.map(({ start: _s, end: _e, ...values }) => ({ ...values, account: undefined })));
    }
  });
});
