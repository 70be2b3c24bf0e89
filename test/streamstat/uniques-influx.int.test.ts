import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { runBackfill } from '../../src/backfill/backfill.js';
import type { Runtime } from '../../src/app/runtime.js';
import { HttpClient } from '../../src/http/client.js';
import { planBackfill } from '../../src/plan/planner.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { StreamstatClient } from '../../src/sources/streamstat/client.js';
import { streamstatMeasurements } from '../../src/sources/streamstat/measurements.js';
import { DAY, HOUR } from '../../src/time.js';
import { configFor, FAST_QUOTAS, runtimeFor } from '../helpers/collector.js';
import { loopbackServer, type LoopbackServer } from '../helpers/loopback.js';
import { INFLUXD_BIN, serverSkipReason, startInfluxV1, type InfluxV1Server } from '../helpers/servers.js';

const skip = serverSkipReason(INFLUXD_BIN);
const GROUPINGS = ['total', 'browsers'] as const;
/** A whole UTC day, long over (the uniques' lag included), so every bucket is final. */
const FROM = Math.floor(Date.now() / DAY) * DAY - 2 * DAY;
const RANGE = { from: FROM, to: FROM + DAY };
const HOURS = Array.from({ length: 24 }, (_, i) => FROM + i * HOUR);

/** The stream views requests the collector sent, as the proxy saw them. */
interface Seen {
  path: string;
  granularity: string | null;
  fields: string | null;
  spanMs: number;
}

/** Forwards every request to the simulator and records its query, so the test counts the collector's calls exactly. */
async function recordingProxy(sim: Simulator): Promise<{ proxy: LoopbackServer; seen: () => Seen[] }> {
  const proxy = await loopbackServer(async (req, res) => {
    const headers: IncomingHttpHeaders = { ...req.headers };
    delete headers.host;
    const up = await request(`${sim.url}${req.url}`, { method: 'GET', headers: headers as Record<string, string> });
    res.writeHead(up.statusCode, { 'content-type': 'application/json' });
    res.end(await up.body.text());
  });
  const seen = () =>
    proxy.requests
      .map((r) => new URL(r.url, proxy.url))
      .filter((u) => u.pathname.startsWith('/app/streamstat/'))
      .map((u) => ({
        path: u.pathname.slice('/app/streamstat/v2'.length),
        granularity: u.searchParams.get('granularity'),
        fields: u.searchParams.get('fields'),
        spanMs: Date.parse(`${u.searchParams.get('end')}Z`) - Date.parse(`${u.searchParams.get('start')}Z`),
      }));
  return { proxy, seen };
}

/**
 * Unique users are read at the period they are shown. A simulated day is collected into a real
 * InfluxDB 1.6.7, from a service that answers in buckets and from one that answers flat: the stored hourly and daily
 * users are the simulator's own answers for each hour and the day, and the hours' users add up to more than the
 * day's (so summing them is wrong), while no views point carries users.
 */
describe.skipIf(skip)('unique users per hour and day → InfluxDB 1.6.7', () => {
  let db: InfluxV1Server;
  const sims: Simulator[] = [];
  const proxies: LoopbackServer[] = [];
  const runtimes: Runtime[] = [];

  /** Collects RANGE into database `name` from a simulator of `shape`; returns the plan's and the proxy's counts. */
  async function collect(name: string, shape: 'buckets' | 'flat') {
    const sim = await startSimulator({ quotas: FAST_QUOTAS, settings: { streamstatShape: shape } });
    sims.push(sim);
    const { proxy, seen } = await recordingProxy(sim);
    proxies.push(proxy);
    await db.query(`CREATE DATABASE ${name}`);
    const jobs = {
      metrics: { enabled: false },
      statistic: { enabled: false },
      dvr: { enabled: false },
      streamstat: { granularity: 'PT15M', groupings: [...GROUPINGS] },
    };
    const config = configFor(
      sim,
      { type: 'influx-v1', url: db.url, database: name },
      { api: { baseUrl: proxy.url, token: sim.token }, jobs },
    );
    const rt = await runtimeFor(config);
    runtimes.push(rt);
    const plan = planBackfill(rt.collector, RANGE);
    const results = await runBackfill(rt.collector, plan);
    expect(results.filter((r) => r.error)).toEqual([]);
    return { sim, plan, seen: seen() };
  }

  let buckets: Awaited<ReturnType<typeof collect>>;
  let flat: Awaited<ReturnType<typeof collect>>;
  let api: StreamstatClient;

  beforeAll(async () => {
    db = await startInfluxV1();
    buckets = await collect('buckets', 'buckets');
    flat = await collect('flat', 'flat');
    // The same seed's world without a quota, so the test's own reads do not compete with the collector's.
    const oracle = await startSimulator({ quotas: NO_QUOTAS });
    sims.push(oracle);
    api = new StreamstatClient(new HttpClient({ baseUrl: oracle.url, token: oracle.token }));
  }, 180_000);

  afterAll(async () => {
    await Promise.all(runtimes.map((rt) => rt.close()));
    await Promise.all([...sims.map((s) => s.close()), ...proxies.map((p) => p.close()), db?.stop()]);
  });

  const users = async (database: string, measurement: string, account: string, extra = '') =>
    (
      await db.query(
        `SELECT "unique_users" FROM ${measurement} WHERE account = '${account}'${extra} AND time >= ${RANGE.from}ms ` +
          `AND time < ${RANGE.to}ms`,
        database,
      )
    ).map((r) => [Number(r.time), r.unique_users]);

  it('stores the simulator’s uniques of the day and of each hour, per account', async () => {
    for (const account of buckets.sim.accounts) {
      const day = await api.total({ account, start: RANGE.from, end: RANGE.to, fields: ['users'] });
      expect(await users('buckets', 'cdn_users_daily', account)).toEqual([[FROM, day.users]]);
      const hours = await Promise.all(
        HOURS.map((h) => api.total({ account, start: h, end: h + HOUR, fields: ['users'] })),
      );
      expect(await users('buckets', 'cdn_users_hourly', account)).toEqual(HOURS.map((h, i) => [h, hours[i]!.users]));
    }
  });

  it('stores the uniques of each browser per day as the simulator’s /browsers answers them', async () => {
    for (const account of buckets.sim.accounts) {
      const day = await api.grouped('browsers', { account, start: RANGE.from, end: RANGE.to, fields: ['users'] });
      expect(day.result.length).toBeGreaterThan(1);
      for (const element of day.result) {
        expect(
          await users('buckets', 'cdn_users_daily_by_browsers', account, ` AND browser = '${element.browser}'`),
        ).toEqual([[FROM, element.users]]);
      }
    }
  });

  it('the hours’ uniques add up to more than the day’s: they must never be summed', async () => {
    for (const account of buckets.sim.accounts) {
      const [[, day]] = (await users('buckets', 'cdn_users_daily', account)) as [[number, number]];
      const hourly = (await users('buckets', 'cdn_users_hourly', account)).map(([, u]) => u as number);
      const [sum] = await db.query(
        `SELECT sum("unique_users") FROM cdn_users_hourly WHERE account = '${account}' AND time >= ${RANGE.from}ms ` +
          `AND time < ${RANGE.to}ms`,
        'buckets',
      );
      expect(sum!.sum).toBeGreaterThan(day);
      expect(Math.max(...hourly)).toBeLessThanOrEqual(day);
    }
  });

  it('views measurements carry views and views_max only; the views calls no longer ask for users', async () => {
    for (const m of ['cdn_views', 'cdn_views_by_browsers']) {
      const keys = await db.query(`SHOW FIELD KEYS FROM ${m}`, 'buckets');
      expect(keys.map((k) => k.fieldKey).sort(), m).toEqual(['views', 'views_max']);
    }
    const views = buckets.seen.filter((s) => s.granularity === 'PT15M');
    expect(views.length).toBeGreaterThan(0);
    expect(new Set(views.map((s) => s.fields))).toEqual(new Set(['views,views_max']));
    expect(new Set(buckets.seen.filter((s) => s.granularity !== 'PT15M').map((s) => s.fields))).toEqual(
      new Set(['users']),
    );
  });

  it(
    'plans the uniques calls: ' +
      'per account and grouping 1 views + 1 hourly + 1 daily (the day in one span each), and spends them',
    () => {
      const accounts = buckets.sim.accounts.length;
      // Planned before any read: one page a read at least; at most, a grouped read adds the page that checks its short
      // page was not capped.
      expect(buckets.plan.calls.streamstat).toBe(accounts * GROUPINGS.length * 3);
      expect(buckets.plan.callsMost.streamstat).toBe(
        accounts * GROUPINGS.reduce((n, g) => n + (g === 'total' ? 3 : 2 * 3), 0),
      );
      expect(buckets.plan.pagingMayAdd).toContain('streamstat');
      const count = (path: string, granularity: string) =>
        buckets.seen.filter((s) => s.path === path && s.granularity === granularity).length;
      // The totals are one call each, as planned.
      expect([count('/', 'PT15M'), count('/', 'PT1H'), count('/', 'P1D')]).toEqual([accounts, accounts, accounts]);
      // A grouped read may take one more (empty) page: a page as large as any seen might have been capped (walkPages).
      for (const [granularity, least] of [
        ['PT15M', 1],
        ['PT1H', 1],
        ['P1D', 1],
      ] as const) {
        expect(count('/browsers', granularity)).toBeGreaterThanOrEqual(least * accounts);
        expect(count('/browsers', granularity)).toBeLessThanOrEqual(2 * least * accounts);
      }
      expect(buckets.seen.every((s) => s.path === '/' || s.path === '/browsers')).toBe(true);
    },
  );

  it('the natural query of each measurement (docs/schema.md) runs on InfluxDB 1.6.7 and finds the day', async () => {
    const collected = streamstatMeasurements.filter((m) => !m.name.includes('_by_') || m.name.endsWith('_by_browsers'));
    expect(collected).toHaveLength(6);
    for (const m of collected) {
      const query = m.query!.replace(/time > now\(\) - \d+d/, `time >= ${RANGE.from}ms AND time < ${RANGE.to}ms`);
      expect(query, m.name).not.toBe(m.query);
      const rows = await db.query(query, 'buckets');
      expect(rows.length, m.name).toBeGreaterThan(0);
    }
    const [daily] = await db.query(
      streamstatMeasurements
        .find((m) => m.name === 'cdn_users_daily')!
        .query!.replace(/time > now\(\) - \d+d/, `time >= ${RANGE.from}ms AND time < ${RANGE.to}ms`),
      'buckets',
    );
    const day = await api.total({ account: 'acme', start: RANGE.from, end: RANGE.to, fields: ['users'] });
    expect(daily!.last).toBe(day.users);
  });

  it('a service answering flat gives the same users points, a day bucket read with a call per day window', async () => {
    for (const m of [
      'cdn_users_daily',
      'cdn_users_hourly',
      'cdn_users_daily_by_browsers',
      'cdn_users_hourly_by_browsers',
    ]) {
      const q = `SELECT "unique_users" FROM ${m} WHERE time >= ${RANGE.from}ms AND time < ${RANGE.to}ms GROUP BY *`;
      const [a, b] = await Promise.all([db.series(q, 'buckets'), db.series(q, 'flat')]);
      expect(a.length, m).toBeGreaterThan(0);
      expect(b, m).toEqual(a);
    }
    const accounts = flat.sim.accounts.length;
    const unbucketed = (path: string) =>
      flat.seen.filter((s) => s.path === path && s.granularity === null && s.fields === 'users');
    expect(unbucketed('/').filter((s) => s.spanMs === DAY)).toHaveLength(accounts);
    expect(unbucketed('/').filter((s) => s.spanMs === HOUR)).toHaveLength(24 * accounts);
    expect(unbucketed('/')).toHaveLength(25 * accounts);
    const days = unbucketed('/browsers').filter((s) => s.spanMs === DAY).length;
    expect(days).toBeGreaterThanOrEqual(accounts);
    expect(days).toBeLessThanOrEqual(2 * accounts);
  });
});
