import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ConfigError } from '../../src/config/loader.js';
import type { Point } from '../../src/points.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { createSink, type Sink } from '../../src/sink/index.js';
import { HOUR } from '../../src/time.js';
import { configFor, runtimeFor } from '../helpers/collector.js';
import {
  serverSkipReason,
  startVictoriaMetrics,
  VICTORIA_BIN,
  type VictoriaMetricsServer,
  type VictoriaSeries,
} from '../helpers/servers.js';
import { testSchema } from './schema.js';

/** Each write stands for one sample; dedup keeps one per series and millisecond (points are at least 1 s apart). */
const DEDUP = '-dedup.minScrapeInterval=1ms';
const T = Date.UTC(2022, 2, 1, 6, 0);
const schema = testSchema({ m: { v: 'integer' } });
const sample = (series: string, v: number): Point => ({ measurement: 'm', tags: { series }, fields: { v }, time: T });

/** What victoria-metrics 1.79.5 does with two writes of one series and time, with and without its dedup flag. */
describe.skipIf(serverSkipReason(VICTORIA_BIN) !== undefined)('VictoriaMetrics: a rewrite is not an overwrite', () => {
  const servers: VictoriaMetricsServer[] = [];
  const sinks: Sink[] = [];
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vm-rewrite-'));
  });
  afterAll(async () => {
    await Promise.all(sinks.map((s) => s.close()));
    await Promise.all(servers.map((s) => s.stop()));
    await rm(dir, { recursive: true, force: true });
  });

  /** Writes `first` then, after it is flushed into a part of its own, `second`; returns the samples per series. */
  async function writeTwice(flags: string[], first: Point[], second: Point[]): Promise<Map<string, VictoriaSeries>> {
    const server = await startVictoriaMetrics(flags);
    servers.push(server);
    const sink = createSink({
      type: 'influx-v2',
      url: server.url,
      token: 't',
      org: 'o',
      bucket: 'b',
      backslashes: 'escaped',
      deadLetterPath: join(dir, 'dead.jsonl'),
      schema,
    });
    sinks.push(sink);
    await sink.write(first);
    await server.export('{__name__="m_v"}'); // forces a flush between the writes
    await sink.write(second);
    return new Map((await server.export('{__name__="m_v"}')).map((s) => [s.metric.series!, s]));
  }

  it('without dedup both samples are kept: a rewrite adds, even an equal value (sums double)', async () => {
    const got = await writeTwice(
      [],
      [sample('changed', 10), sample('equal', 7)],
      [sample('changed', 25), sample('equal', 7)],
    );
    expect([...got.get('changed')!.values].sort((a, b) => a - b)).toEqual([10, 25]);
    expect(got.get('equal')!.values).toEqual([7, 7]);
    expect(got.get('equal')!.timestamps).toEqual([T, T]);
  });

  it(`with ${DEDUP}: an equal rewrite is harmless, a changed value keeps either (not the last written)`, async () => {
    const got = await writeTwice(
      [DEDUP],
      [sample('changed', 10), sample('equal', 7)],
      [sample('changed', 25), sample('equal', 7)],
    );
    expect(got.get('equal')!.values).toEqual([7]);
    expect(got.get('changed')!.timestamps).toEqual([T]);
    // Measured on 1.79.5: 10 survives here; which one does is not the order of the writes, so no value is relied on.
    expect([10, 25]).toContain(got.get('changed')!.values[0]);
  });
});

/** The collector's side: with `output.overwrites: false` it writes only values that do not change on a rewrite. */
describe.skipIf(serverSkipReason(VICTORIA_BIN) !== undefined)(
  'the collector into VictoriaMetrics (output.overwrites: false)',
  () => {
    const clock = new ManualClock(Math.floor(Date.UTC(2026, 2, 2, 12) / HOUR) * HOUR);
    let sim: Simulator;
    let vm: VictoriaMetricsServer;
    beforeAll(async () => {
      sim = await startSimulator({ clock, quotas: NO_QUOTAS });
      vm = await startVictoriaMetrics([DEDUP]);
    });
    afterAll(async () => {
      await vm?.stop();
      await sim?.close();
    });

    const vmSink = () => ({
      type: 'influx-v2',
      url: vm.url,
      token: 't',
      org: 'o',
      bucket: 'b',
      backslashes: 'escaped',
    });
    const jobs = { streamstat: { enabled: false }, dvr: { enabled: false } };

    it('refuses provisional statistics, naming both fields (a provisional and a final sample would be summed)', () => {
      let refused: unknown;
      try {
        configFor(sim, vmSink(), {
          accounts: ['acme'],
          jobs: { ...jobs, statistic: { provisional: true } },
          output: { overwrites: false },
        });
      } catch (err) {
        refused = err;
      }
      expect(refused).toBeInstanceOf(ConfigError);
      expect((refused as ConfigError).field).toBe('jobs.statistic.provisional');
      expect((refused as Error).message).toContain('output.overwrites');
      // The same settings are accepted where the database overwrites.
      expect(() =>
        configFor(sim, vmSink(), { accounts: ['acme'], jobs: { ...jobs, statistic: { provisional: true } } }),
      ).not.toThrow();
    });

    it('a window collected again after a restart that lost its checkpoints does not double', async () => {
      const collectOnce = async () => {
        // A fresh state dir each time: the restart re-collects every window it had written.
        const config = configFor(sim, vmSink(), { accounts: ['acme'], jobs, output: { overwrites: false } });
        const rt = await runtimeFor(config, clock);
        try {
          await rt.collector.tick();
        } finally {
          await rt.close();
        }
        return vm.export('{__name__=~"cdn_(traffic|metrics).*"}');
      };
      const key = (s: VictoriaSeries) => JSON.stringify(Object.entries(s.metric).sort());
      const first = new Map((await collectOnce()).map((s) => [key(s), s]));
      expect(first.size).toBeGreaterThan(0);
      const second = await collectOnce();
      expect(second.map(key).sort()).toEqual([...first.keys()].sort());
      for (const series of second) {
        expect(new Set(series.timestamps).size, key(series)).toBe(series.timestamps.length);
        expect(series.values, key(series)).toEqual(first.get(key(series))!.values);
      }
    });
  },
);
