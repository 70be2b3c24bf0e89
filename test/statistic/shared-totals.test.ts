import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { CollectorConfig } from '../../src/config/schema.js';
import { HttpClient } from '../../src/http/client.js';
import { planBackfill } from '../../src/plan/planner.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { StatisticClient } from '../../src/sources/statistic/client.js';
import { statisticJobs } from '../../src/sources/statistic/jobs.js';
import { schema as statisticSettings } from '../../src/sources/statistic/settings.js';
import { ReadFor, SHARED_TOTALS_KEY } from '../../src/sources/statistic/shared-totals.js';
import { HOUR, MINUTE } from '../../src/time.js';
import { configFor, runtimeFor } from '../helpers/collector.js';

/** Hits of cdn_traffic points per account and time in a line-protocol file, and how often each was written. */
function trafficPoints(file: string): Map<string, Map<number, { hits: number; writes: number }>> {
  const out = new Map<string, Map<number, { hits: number; writes: number }>>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^cdn_traffic,account=([^,]+),service=all .*\bhits=(\d+)i.* (\d+)$/.exec(line);
    if (!m) continue;
    const times = out.get(m[1]!) ?? new Map<number, { hits: number; writes: number }>();
    out.set(m[1]!, times);
    const time = Number(BigInt(m[3]!) / 1_000_000n);
    times.set(time, { hits: Number(m[2]), writes: (times.get(time)?.writes ?? 0) + 1 });
  }
  return out;
}

const statisticOnly = (groupings: string[], extra: Record<string, unknown> = {}) => ({
  metrics: { enabled: false },
  streamstat: { enabled: false },
  dvr: { enabled: false },
  statistic: { groupings, ...extra },
});

/**
 * The `accounts` grouping carries several accounts' totals in one call. With two or more accounts the
 * totals are one job reading /times/accounts (1 call per span and page), planned as it is made, writing the same
 * cdn_traffic points as one /times?account=… job per account, under the same per-account checkpoints.
 */
describe('one /times/accounts job for the totals of several accounts', () => {
  const clock = new ManualClock(Math.floor(Date.now() / HOUR) * HOUR - 24 * HOUR);
  let sim: Simulator;
  let client: StatisticClient;
  beforeAll(async () => {
    sim = await startSimulator({ clock, quotas: NO_QUOTAS, world: { accounts: 4 } });
    client = new StatisticClient(new HttpClient({ baseUrl: sim.url, token: sim.token }));
  });
  afterAll(() => sim.close());

  const config = (
    out: string,
    accounts: string[],
    groupings: string[],
    extra: Record<string, unknown> = {},
    state?: string,
  ): CollectorConfig => {
    const c = configFor(sim, { type: 'file', path: out }, { accounts, jobs: statisticOnly(groupings), ...extra });
    return state === undefined ? c : { ...c, state: { ...c.state, dir: state } };
  };
  const tempFile = () => join(mkdtempSync(join(tmpdir(), 'shared-')), 'points.lp');

  it('total and accounts are one job; one account keeps its /times job', async () => {
    const three = await runtimeFor(
      config(tempFile(), ['acme', 'globex', 'initech'], ['total', 'accounts', 'countries']),
      clock,
    );
    expect(three.collector.jobs.map((j) => j.key)).toEqual([
      'statistic/acme/countries',
      'statistic/globex/countries',
      'statistic/initech/countries',
      SHARED_TOTALS_KEY,
    ]);
    await three.close();
    const one = await runtimeFor(config(tempFile(), ['acme'], ['accounts', 'total']), clock);
    expect(one.collector.jobs.map((j) => j.key)).toEqual(['statistic/acme/total']);
    await one.close();
  });

  for (const pageSize of [1000, 2]) {
    it(`calls planned = calls made (page size ${pageSize}); each account gets exactly its /times buckets`, async () => {
      const out = tempFile();
      // The token sees four accounts; three are configured and only theirs are written.
      const rt = await runtimeFor(
        config(out, ['acme', 'globex', 'initech'], ['total'], {
          api: { baseUrl: sim.url, token: sim.token, pageSize },
        }),
        clock,
      );
      const [job] = rt.collector.jobs;
      const spans = rt.collector.pending(job!);
      expect(spans.length).toBeGreaterThan(0);
      const planned = spans.reduce((n, s) => n + job!.callsFor(s).least, 0);
      expect(planned).toBe(spans.length * Math.ceil(3 / pageSize));
      const before = sim.stats.apis.statistic.requests;
      expect((await rt.collector.tick()).filter((r) => r.error)).toEqual([]);
      expect(sim.stats.apis.statistic.requests - before).toBe(planned);

      const written = trafficPoints(out);
      expect([...written.keys()].sort()).toEqual(['acme', 'globex', 'initech']);
      for (const account of ['acme', 'globex', 'initech']) {
        const confirmed = rt.store.confirmed(`statistic/${account}/total`);
        expect(confirmed).toEqual([{ from: spans[0]!.from, to: spans.at(-1)!.to }]);
        const own = (
          await client.times({ account, start: confirmed[0]!.from, end: confirmed[0]!.to, granularity: 'PT5M' })
        ).body.result;
        expect([...written.get(account)!].map(([t, p]) => [t, p.hits])).toEqual(
          own.map((b) => [Date.parse(b.start), b.hits]),
        );
      }
      await rt.close();
    });
  }

  it('takes over per-account checkpoints: no window read twice, no gap, a new account reads its lookback', async () => {
    const out = tempFile();
    const state = mkdtempSync(join(tmpdir(), 'shared-state-'));
    const single = await runtimeFor(config(out, ['acme'], ['total'], {}, state), clock);
    await single.collector.tick();
    const acmeBefore = single.store.confirmed('statistic/acme/total');
    expect(acmeBefore).toHaveLength(1);
    await single.close();

    clock.advance(3 * HOUR);
    const shared = await runtimeFor(config(out, ['acme', 'globex'], ['total'], {}, state), clock);
    const [job] = shared.collector.jobs;
    expect(job!.key).toBe(SHARED_TOTALS_KEY);
    const pending = shared.collector.pending(job!);
    // acme continues where its own job stopped; globex, new, starts `initialLookback` (1 h) before the newest window.
    expect(pending[0]!.from).toBe(acmeBefore[0]!.to);
    const newest = pending.at(-1)!.to;
    expect(newest - acmeBefore[0]!.to).toBe(3 * HOUR);
    expect(
      planBackfill(shared.collector, { from: acmeBefore[0]!.from, to: newest }, ['statistic/globex']).jobs.map(
        (j) => j.job.key,
      ),
    ).toEqual([SHARED_TOTALS_KEY]);
    expect((await shared.collector.tick()).filter((r) => r.error)).toEqual([]);
    expect(shared.store.confirmed('statistic/acme/total')).toEqual([{ from: acmeBefore[0]!.from, to: newest }]);
    expect(shared.store.confirmed('statistic/globex/total')).toEqual([{ from: acmeBefore[0]!.to, to: newest }]);
    expect(shared.collector.pending(job!)).toEqual([]);

    const acme = trafficPoints(out).get('acme')!;
    const buckets = (newest - acmeBefore[0]!.from) / (5 * MINUTE);
    expect(acme.size).toBe(buckets);
    expect([...acme.values()].every((p) => p.writes === 1)).toBe(true);
    const truth = (await client.total({ account: 'acme', start: acmeBefore[0]!.from, end: newest })).body.hits;
    expect([...acme.values()].reduce((n, p) => n + p.hits, 0)).toBe(truth);
    await shared.close();
  });

  it('an account joining mid-span is not confirmed for that span; the provisional twin confirms nothing', async () => {
    const members = new Set<string>();
    const settings = statisticSettings.parse({ groupings: ['accounts'], provisional: true });
    const jobs = statisticJobs(settings, { accounts: ['acme', 'globex'], accountsAuto: true, pageSize: 1000 }, members);
    expect(jobs.map((j) => [j.key, j.checkpointed, j.sharedKeys !== undefined])).toEqual([
      [SHARED_TOTALS_KEY, true, true],
      ['statistic-provisional/*/total', false, false],
    ]);
    const [job] = jobs;
    const span = { from: clock.now() - 3 * HOUR, to: clock.now() - 2 * HOUR };
    const points = await job!.collect(span, new HttpClient({ baseUrl: sim.url, token: sim.token }));
    expect(new Set(points.map((p) => p.tags.account))).toEqual(new Set(['acme', 'globex']));
    expect(points).toHaveLength(2 * 12);
    // Discovery adds an account (statisticJobs with the runtime's member set) before the span is confirmed.
    statisticJobs(settings, { accounts: ['initech'], accountsAuto: true, pageSize: 1000 }, members);
    expect(job!.sharedKeys!()).toEqual(['statistic/acme/total', 'statistic/globex/total', 'statistic/initech/total']);
    expect(job!.sharedKeys!(span)).toEqual(['statistic/acme/total', 'statistic/globex/total']);
    expect(job!.sharedKeys!(span)).toEqual([]);
  });

  it('ReadFor keeps the newest reads only', () => {
    const readFor = new ReadFor(2);
    for (let i = 0; i < 3; i++) readFor.record({ from: i, to: i + 1 }, new Set([`a${i}`]));
    expect(readFor.take({ from: 0, to: 1 })).toEqual([]);
    expect(readFor.take({ from: 2, to: 3 })).toEqual(['a2']);
  });
});
