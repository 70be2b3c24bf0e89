import { InfluxDB } from '@influxdata/influxdb-client';
import type { StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBackfill } from '../../src/backfill/backfill.js';
import { planBackfill } from '../../src/plan/planner.js';
import { HttpClient } from '../../src/http/client.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { StatisticClient } from '../../src/sources/statistic/client.js';
import { HOUR } from '../../src/time.js';
import { configFor, FAST_QUOTAS, runtimeFor } from '../helpers/collector.js';
import { dockerUnavailable, INFLUX2, startInflux2 } from '../helpers/docker.js';

const skipReason = await dockerUnavailable('collector/influx2-container.int.test.ts');

/** Where a Docker engine answers: the collector's points arrive in the official InfluxDB 2 image, with exact totals. */
describe.skipIf(skipReason !== undefined)('collector → influxdb:2 (testcontainers)', () => {
  let container: StartedTestContainer;
  let sim: Simulator;
  let url: string;
  const to = Math.floor((Date.now() - 2 * HOUR) / HOUR) * HOUR;
  const from = to - 6 * HOUR;

  beforeAll(async () => {
    let started: Awaited<ReturnType<typeof startInflux2>>;
    [started, sim] = await Promise.all([startInflux2(), startSimulator({ quotas: FAST_QUOTAS })]);
    ({ container, url } = started);
    const rt = await runtimeFor(
      configFor(
        sim,
        { type: 'influx-v2', url, token: INFLUX2.token, org: INFLUX2.org, bucket: INFLUX2.bucket },
        { accounts: ['acme'] },
      ),
    );
    const results = await runBackfill(rt.collector, planBackfill(rt.collector, { from, to }));
    await rt.close();
    expect(results.filter((r) => r.error)).toEqual([]);
  }, 180_000);

  afterAll(async () => {
    await sim?.close();
    await container?.stop();
  });

  it('statistics hits in InfluxDB 2 equal the simulator total', async () => {
    const query = new InfluxDB({ url, token: INFLUX2.token }).getQueryApi(INFLUX2.org);
    const flux = `from(bucket: "${INFLUX2.bucket}")
      |> range(start: ${new Date(from).toISOString()}, stop: ${new Date(to).toISOString()})
      |> filter(fn: (r) => r._measurement == "cdn_traffic" and r._field == "hits" and r.account == "acme")
      |> sum()`;
    const rows = await query.collectRows<{ _value: number }>(flux);
    const expected = await new StatisticClient(new HttpClient({ baseUrl: sim.url, token: sim.token })).total({
      account: 'acme',
      start: from,
      end: to,
    });
    expect(rows[0]?._value).toBe(expected.body.hits);
  });
});
