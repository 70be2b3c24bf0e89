import type { StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CollectorConfig } from '../../src/config/schema.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { HOUR } from '../../src/time.js';
import { FAST_QUOTAS } from '../helpers/collector.js';
import { dockerUnavailable, INFLUX2, startInflux2 } from '../helpers/docker.js';
import { collectDay, driftOf, verify, verifiedDay, verifyConfig } from './helpers.js';

const skipReason = await dockerUnavailable('verify/influx2-container.int.test.ts');

/** Where a Docker engine answers: the Flux reader (official client's QueryApi) against the official InfluxDB 2 image.
 * */
describe.skipIf(skipReason !== undefined)('verify → influxdb:2 (testcontainers, Flux)', () => {
  let container: StartedTestContainer;
  let sim: Simulator;
  let url: string;
  let config: CollectorConfig;
  const day = verifiedDay();

  beforeAll(async () => {
    let started: Awaited<ReturnType<typeof startInflux2>>;
    [started, sim] = await Promise.all([startInflux2(), startSimulator({ quotas: FAST_QUOTAS })]);
    ({ container, url } = started);
    config = verifyConfig(sim, {
      type: 'influx-v2',
      url,
      token: INFLUX2.token,
      org: INFLUX2.org,
      bucket: INFLUX2.bucket,
    });
    await collectDay(config, day);
  }, 300_000);

  afterAll(async () => {
    await sim?.close();
    await container?.stop();
  });

  it('zero drift for the collected day; a deleted hour is drift that --repair restores', async () => {
    const clean = await verify(config, day);
    expect(clean.report.reader).toBe('flux');
    expect(clean.report.series).toBeGreaterThan(0);
    expect(driftOf(clean.report.drift)).toEqual([]);

    const account = sim.accounts[0]!;
    const res = await fetch(`${url}/api/v2/delete?org=${INFLUX2.org}&bucket=${INFLUX2.bucket}`, {
      method: 'POST',
      headers: { authorization: `Token ${INFLUX2.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        start: new Date(day.from + 6 * HOUR).toISOString(),
        stop: new Date(day.from + 7 * HOUR - 1).toISOString(),
        predicate: `_measurement="cdn_views" AND account="${account}"`,
      }),
    });
    expect(res.status).toBe(204);

    const { report } = await verify(config, day, true);
    expect(driftOf(report.drift).map((d) => [d.measurement, d.field, d.account])).toEqual([
      ['cdn_views', 'views', account],
    ]);
    expect(report.repair!.after).toEqual([]);
  }, 300_000);
});
