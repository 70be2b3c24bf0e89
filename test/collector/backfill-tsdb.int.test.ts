import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBackfill } from '../../src/backfill/backfill.js';
import { planBackfill } from '../../src/plan/planner.js';
import type { Runtime } from '../../src/app/runtime.js';
import { HttpClient } from '../../src/http/client.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { maxInSlidingWindow } from '../../src/sim/stats.js';
import { StatisticClient } from '../../src/sources/statistic/client.js';
import { StreamstatClient } from '../../src/sources/streamstat/client.js';
import { DAY, HOUR, MINUTE } from '../../src/time.js';
import { configFor, FAST_QUOTAS, runtimeFor } from '../helpers/collector.js';
import { INFLUXD_BIN, serverSkipReason, startInfluxV1, type InfluxV1Server } from '../helpers/servers.js';

const skip = serverSkipReason(INFLUXD_BIN);
const DAYS = 2;

/**
 * A backfill of several simulated days through the v1 sink into a real InfluxDB 1.6.7: every window lands, the
 * database totals equal the simulator's totals endpoints, the quotas are never exceeded and no 429 comes back.
 */
describe.skipIf(skip)('backfill → InfluxDB 1.6.7', () => {
  let sim: Simulator;
  let db: InfluxV1Server;
  let rt: Runtime;
  // Whole hours, old enough that statistics are final (lag 1 h).
  const to = Math.floor((Date.now() - 2 * HOUR) / HOUR) * HOUR;
  const from = to - DAYS * DAY;
  const range = { from, to };

  beforeAll(async () => {
    [sim, db] = await Promise.all([startSimulator({ quotas: FAST_QUOTAS }), startInfluxV1()]);
    await db.query('CREATE DATABASE cdn');
    rt = await runtimeFor(configFor(sim, { type: 'influx-v1', url: db.url, database: 'cdn' }));
    const plan = planBackfill(rt.collector, range);
    const results = await runBackfill(rt.collector, plan);
    expect(results.filter((r) => r.error)).toEqual([]);
  }, 180_000);

  afterAll(async () => {
    await rt?.close();
    await Promise.all([sim?.close(), db?.stop()]);
  });

  const sum = async (select: string, where: string): Promise<Record<string, unknown>> => {
    const rows = await db.query(`SELECT ${select} FROM ${where} AND time >= ${from}ms AND time < ${to}ms`, 'cdn');
    return rows[0] ?? {};
  };

  it('lands every window: no span is missing afterwards', () => {
    const missing = rt.collector.jobs.filter((j) => j.checkpointed).flatMap((j) => rt.collector.pending(j, range));
    expect(missing).toEqual([]);
  });

  it('writes one metrics point per 10-minute window and account', async () => {
    const rows = await db.query(
      `SELECT count(edge_requests_total) FROM cdn_metrics WHERE time >= ${from}ms AND time < ${to}ms GROUP BY account`,
      'cdn',
    );
    expect(rows.map((r) => r.count)).toEqual(sim.accounts.map(() => (DAYS * DAY) / (10 * MINUTE)));
  });

  it('statistics totals in the database equal the simulator totals endpoint, per account', async () => {
    const client = new StatisticClient(new HttpClient({ baseUrl: sim.url, token: sim.token }));
    for (const account of sim.accounts) {
      const expected = (await client.total({ account, start: from, end: to })).body;
      const total = await sum('sum(traffic) AS traffic, sum(hits) AS hits', `cdn_traffic WHERE account = '${account}'`);
      expect(total).toMatchObject({ traffic: expected.traffic, hits: expected.hits });
      // Groupings add up to the same totals.
      const byCountry = await sum('sum(traffic) AS traffic', `cdn_traffic_by_countries WHERE account = '${account}'`);
      expect(byCountry.traffic).toBe(expected.traffic);
    }
  });

  it('metrics and statistics agree: edge requests = statistics hits; aggregate = sum over resources', async () => {
    for (const account of sim.accounts) {
      const hits = await sum('sum(hits) AS v', `cdn_traffic WHERE account = '${account}'`);
      const edge = await sum('sum(edge_requests_total) AS v', `cdn_metrics WHERE account = '${account}'`);
      const perResource = await sum(
        'sum(edge_requests_total) AS v',
        `cdn_metrics_resource WHERE account = '${account}'`,
      );
      expect(edge.v).toBe(hits.v);
      expect(perResource.v).toBe(edge.v);
    }
  });

  it('stream views in the database equal the simulator totals endpoint', async () => {
    const client = new StreamstatClient(new HttpClient({ baseUrl: sim.url, token: sim.token }));
    for (const account of sim.accounts) {
      const expected = await client.total({ account, start: from, end: to });
      const total = await sum('sum(views) AS views', `cdn_views WHERE account = '${account}'`);
      expect(total.views).toBe(expected.views);
    }
  });

  it('hostile resource names round-trip exactly as tag values', async () => {
    const rows = await db.query('SHOW TAG VALUES FROM cdn_metrics_resource WITH KEY = resource_name', 'cdn');
    const names = sim.world.accounts.flatMap((a) => a.resources.map((r) => r.name));
    expect(rows.map((r) => r.value).sort()).toEqual([...new Set(names)].sort());
  });

  it('never exceeded a quota window and got no 429', () => {
    for (const [api, rule] of Object.entries(FAST_QUOTAS)) {
      const stats = sim.stats.apis[api as keyof typeof FAST_QUOTAS];
      expect(stats.quotaRejections, api).toBe(0);
      expect(maxInSlidingWindow(stats.admittedAt, rule.periodMs), api).toBeLessThanOrEqual(rule.calls);
    }
  });
});
