import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CollectorConfig } from '../../src/config/schema.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { FAST_QUOTAS } from '../helpers/collector.js';
import {
  serverSkipReason,
  startVictoriaMetrics,
  VICTORIA_BIN,
  type VictoriaMetricsServer,
} from '../helpers/servers.js';
import { collectDay, driftOf, verify, verifiedDay, verifyConfig } from './helpers.js';

const skip = serverSkipReason(VICTORIA_BIN);

/**
 * On a real VictoriaMetrics (written through /api/v2/write, read back by /api/v1/export): zero drift for
 * a collected day; deleted series (admin delete_series) are drift a repair restores; a second value at the same time
 * is drift a repair cannot undo there (VictoriaMetrics keeps every sample) and the re-check says so.
 */
describe.skipIf(skip)('verify → VictoriaMetrics', () => {
  let sim: Simulator;
  let vm: VictoriaMetricsServer;
  let config: CollectorConfig;
  let account: string;
  const day = verifiedDay();

  beforeAll(async () => {
    [sim, vm] = await Promise.all([startSimulator({ quotas: FAST_QUOTAS }), startVictoriaMetrics()]);
    config = verifyConfig(sim, {
      type: 'influx-v2',
      url: vm.url,
      token: 'unused',
      org: 'unused',
      bucket: 'cdn',
      backslashes: 'escaped',
    });
    account = sim.accounts[0]!;
    await collectDay(config, day);
    await vm.export('{__name__="flush"}'); // forces the ingest buffer out
  }, 180_000);

  afterAll(async () => {
    await Promise.all([sim?.close(), vm?.stop()]);
  });

  it('a collected day has zero drift', async () => {
    const { report } = await verify(config, day);
    expect(report.reader).toBe('victoriametrics');
    expect(report.series).toBeGreaterThan(0);
    expect(new Set(report.checked.map((c) => c.measurement))).toContain('cdn_views');
    expect(driftOf(report.drift)).toEqual([]);
  }, 120_000);

  it('a deleted series is drift; --repair writes it again and the re-check is zero', async () => {
    const selector = `{__name__="cdn_views_by_streams_views",account="${account}"}`;
    const before = (await vm.export(selector)).flatMap((s) => s.values).reduce((a, b) => a + b, 0);
    expect(before).toBeGreaterThan(0);
    const res = await request(
      `${vm.url}/api/v1/admin/tsdb/delete_series?${new URLSearchParams({ 'match[]': selector })}`,
      { method: 'POST' },
    );
    await res.body.dump();
    expect(res.statusCode).toBe(204);

    const { report } = await verify(config, day);
    expect(driftOf(report.drift)).toEqual([
      { measurement: 'cdn_views_by_streams', field: 'views', account, difference: -before },
    ]);

    const repaired = await verify(config, day, true);
    expect(Object.keys(repaired.report.repair!.recollected)).toEqual([`streamstat/${account}/streams`]);
    expect(repaired.report.repair!.after).toEqual([]);
    await vm.export('{__name__="flush"}');
    expect((await verify(config, day)).report.drift).toEqual([]);
  }, 180_000);

  it('a second value at the same series and time adds up (every sample kept): drift a repair cannot undo', async () => {
    const [series] = await vm.export(`{__name__="cdn_traffic_hits",account="${account}"}`);
    const { __name__: _name, ...labels } = series!.metric;
    const tags = Object.entries(labels)
      .map(([k, v]) => `${k}=${v.replace(/([ ,=\\])/g, '\\$1')}`)
      .join(',');
    const write = await request(`${vm.url}/api/v2/write?precision=ms`, {
      method: 'POST',
      body: `cdn_traffic,${tags} hits=7i ${series!.timestamps[0]}`,
    });
    await write.body.dump();
    expect(write.statusCode).toBe(204);
    await vm.export('{__name__="flush"}');

    const repaired = await verify(config, day, true);
    expect(driftOf(repaired.report.drift)).toEqual([
      { measurement: 'cdn_traffic', field: 'hits', account, difference: 7 },
    ]);
    // The re-collected value is written again at the same time: VictoriaMetrics keeps it beside the others.
    expect(driftOf(repaired.report.repair!.after)).toEqual([
      { measurement: 'cdn_traffic', field: 'hits', account, difference: 7 },
    ]);
  }, 180_000);
});
