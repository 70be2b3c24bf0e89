import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Runtime } from '../../src/app/runtime.js';
import { HttpClient } from '../../src/http/client.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { StatisticClient } from '../../src/sources/statistic/client.js';
import type { StatisticQuery } from '../../src/sources/statistic/params.js';
import { HOUR } from '../../src/time.js';
import { configFor, runtimeFor } from '../helpers/collector.js';
import { INFLUXD_BIN, serverSkipReason, startInfluxV1, type InfluxV1Server } from '../helpers/servers.js';

const skip = serverSkipReason(INFLUXD_BIN);
const TOKEN = 'discovering-token';

/**
 * End to end into a real InfluxDB 1.x: `accounts: auto` finds the token's accounts (and one granted later,
 * without a restart), and `paths` is collected per listed host. The database sums equal the simulator's endpoints.
 */
describe.skipIf(skip)('discovered accounts and paths → InfluxDB', () => {
  const clock = new ManualClock(Math.floor(Date.now() / HOUR) * HOUR - 24 * HOUR);
  let sim: Simulator;
  let db: InfluxV1Server;
  let rt: Runtime;
  let hostsOf: Record<string, string[]>;

  beforeAll(async () => {
    [sim, db] = await Promise.all([
      startSimulator({ clock, quotas: NO_QUOTAS, world: { accounts: 3 } }),
      startInfluxV1(),
    ]);
    await db.query('CREATE DATABASE cdn');
    hostsOf = Object.fromEntries(sim.world.accounts.map((a) => [a.name, a.resources.slice(0, 2).map((r) => r.cname)]));
    sim.addToken(TOKEN, { accounts: ['acme', 'globex'] });
    const config = configFor(
      sim,
      { type: 'influx-v1', url: db.url, database: 'cdn' },
      {
        api: { baseUrl: sim.url, token: TOKEN },
        accounts: 'auto',
        jobs: {
          metrics: { enabled: false },
          streamstat: { enabled: false },
          dvr: { enabled: false },
          statistic: { groupings: ['total', 'paths'], paths: { hosts: hostsOf } },
        },
      },
    );
    rt = await runtimeFor(config, clock);
    expect(await rt.discovery!.refresh()).toEqual(['acme', 'globex']);
    expect((await rt.collector.tick()).filter((r) => r.error)).toEqual([]);
    sim.addToken(TOKEN, { accounts: ['acme', 'globex', 'initech'] });
    clock.advance(HOUR);
    expect(await rt.discovery!.refresh()).toEqual(['initech']);
    expect((await rt.collector.tick()).filter((r) => r.error)).toEqual([]);
  }, 120_000);

  afterAll(async () => {
    await rt?.close();
    await Promise.all([sim?.close(), db?.stop()]);
  });

  /** The simulator's hits over what `key` confirmed, from `/` or, with a host, summed over `/paths`. */
  const truth = async (
    key: string,
    q: Pick<StatisticQuery, 'account' | 'host'>,
  ): Promise<{ hits: number; from: number; to: number }> => {
    const spans = rt.store.confirmed(key);
    expect(spans, key).toHaveLength(1);
    const { from, to } = spans[0]!;
    const client = new StatisticClient(new HttpClient({ baseUrl: sim.url, token: sim.token }));
    if (q.host === undefined)
      return { hits: (await client.total({ ...q, start: from, end: to })).body.hits!, from, to };
    let hits = 0;
    for await (const rows of client.pages('paths', { ...q, start: from, end: to }))
      hits += rows.reduce((n, r) => n + (r.hits ?? 0), 0);
    return { hits, from, to };
  };

  const dbHits = async (measurement: string, where: string, from: number, to: number): Promise<unknown> =>
    (
      await db.query(
        `SELECT sum(hits) AS hits FROM ${measurement} WHERE ${where} AND time >= ${from}ms AND time < ${to}ms`,
        'cdn',
      )
    )[0]?.hits;

  it('collects every discovered account, including the one granted between two discoveries', async () => {
    const rows = await db.query(`SELECT count(hits) FROM cdn_traffic GROUP BY account`, 'cdn');
    expect(rows.map((r) => r.account).sort()).toEqual(['acme', 'globex', 'initech']);
    for (const account of ['acme', 'globex', 'initech']) {
      const { hits, from, to } = await truth(`statistic/${account}/total`, { account });
      expect(hits).toBeGreaterThan(0);
      expect(await dbHits('cdn_traffic', `account = '${account}'`, from, to), account).toBe(hits);
    }
  });

  it('stores paths with their host tag; per-host totals equal the simulator /paths totals for that host', async () => {
    const tagged = await db.query(`SHOW TAG VALUES FROM cdn_traffic_by_paths WITH KEY = host`, 'cdn');
    expect(tagged.map((r) => r.value).sort()).toEqual(Object.values(hostsOf).flat().sort());
    for (const account of ['acme', 'globex', 'initech']) {
      for (const host of hostsOf[account]!) {
        const { hits, from, to } = await truth(`statistic/${account}/paths/${host}`, { account, host });
        expect(hits).toBeGreaterThan(0);
        expect(
          await dbHits('cdn_traffic_by_paths', `account = '${account}' AND host = '${host}'`, from, to),
          host,
        ).toBe(hits);
      }
    }
  });
});
