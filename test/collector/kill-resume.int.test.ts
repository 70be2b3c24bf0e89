import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { HttpClient } from '../../src/http/client.js';
import { configQuotasOf } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { maxInSlidingWindow } from '../../src/sim/stats.js';
import { StatisticClient } from '../../src/sources/statistic/client.js';
import { CheckpointStore } from '../../src/state/checkpoints.js';
import { DAY, HOUR, MINUTE } from '../../src/time.js';
import { confirmedMs, readCheckpoints } from '../helpers/state-files.js';
import { backfillArgs, runCli } from '../helpers/cli.js';
import { FAST_QUOTAS } from '../helpers/collector.js';
import {
  serverSkipReason,
  startVictoriaMetrics,
  VICTORIA_BIN,
  type VictoriaMetricsServer,
} from '../helpers/servers.js';

const skip = serverSkipReason(VICTORIA_BIN);

/**
 * `backfill` killed with -9 mid-run and started again resumes from its checkpoints and finishes with every window in
 * the database (VictoriaMetrics through the v2 write API), exact totals, and no quota window exceeded.
 */
describe.skipIf(skip)('backfill killed with -9 resumes', () => {
  let sim: Simulator;
  let vm: VictoriaMetricsServer;
  const dir = mkdtempSync(join(tmpdir(), 'kill-'));
  const to = Math.floor((Date.now() - 2 * HOUR) / HOUR) * HOUR;
  const from = to - 2 * DAY;
  const configPath = join(dir, 'collector.yaml');

  beforeAll(async () => {
    [sim, vm] = await Promise.all([startSimulator({ quotas: FAST_QUOTAS }), startVictoriaMetrics()]);
    const config = {
      api: { baseUrl: sim.url, token: sim.token },
      accounts: sim.accounts,
      quotas: configQuotasOf(sim.quota),
      jobs: { dvr: { enabled: false }, streamstat: { enabled: false } },
      sink: { type: 'influx-v2', url: vm.url, token: 'unused', org: 'unused', bucket: 'cdn', backslashes: 'escaped' },
      output: { deadLetterPath: join(dir, 'dead.jsonl') },
      state: { dir: join(dir, 'state') },
      log: { level: 'warn' },
    };
    writeFileSync(configPath, stringify(config));
  }, 60_000);
  afterAll(async () => {
    await Promise.all([sim?.close(), vm?.stop()]);
  });

  const backfill = () => runCli(backfillArgs(configPath, from, to));

  it('is killed twice, then completes with every window and exact totals', async () => {
    const stateDir = join(dir, 'state');
    const outputs: string[] = [];
    for (let kill = 0; kill < 2; kill++) {
      const { child, exited } = backfill();
      // Pull the plug once this run has confirmed spans of its own: more collected time than any run before it.
      const before = confirmedMs(readCheckpoints(stateDir));
      await vi.waitFor(() => expect(confirmedMs(readCheckpoints(stateDir))).toBeGreaterThan(before), {
        timeout: 30_000,
        interval: 50,
      });
      child.kill('SIGKILL');
      const killed = await exited;
      outputs.push(killed.stderr);
      expect(killed.signal).toBe('SIGKILL');
    }

    const { code, stderr } = await backfill().exited;
    outputs.push(stderr);
    expect(code, stderr).toBe(0);

    const store = await CheckpointStore.open(join(dir, 'state'));
    for (const account of sim.accounts) {
      expect(store.missing(`metrics/${account}`, from, to)).toEqual([]);
      expect(store.missing(`statistic/${account}/total`, from, to)).toEqual([]);
    }
    await store.close();

    const client = new StatisticClient(new HttpClient({ baseUrl: sim.url, token: sim.token }));
    for (const account of sim.accounts) {
      // Rows become searchable from an in-memory buffer (export forces it out): read until every window is there,
      // for a few seconds at most, so that a late flush is told apart from windows the database never got.
      const selector = `cdn_metrics_edge_requests_total{account="${account}"}`;
      let absent: string[] = [];
      let firstRead: number | undefined;
      await vi
        .waitFor(
          async () => {
            absent = absentWindows(distinctTimes(await vm.export(selector), from, to), from, to);
            firstRead ??= absent.length;
            expect(absent).toEqual([]);
          },
          { timeout: 10_000, interval: 250 },
        )
        .catch(() => {});
      if (firstRead && absent.length === 0) console.warn(`kill-resume: ${firstRead} windows of ${account} came late`);
      const why = absent.length > 0 ? `${diagnose(dir, account, absent, outputs)}\n${await vm.health()}` : '';
      expect(absent, why).toEqual([]);

      const expected = (await client.total({ account, start: from, end: to })).body;
      const traffic = await vm.export(`cdn_traffic_hits{account="${account}"}`);
      const byTime = distinctTimes(traffic, from, to);
      expect([...byTime.values()].reduce((a, b) => a + b, 0)).toBe(expected.hits);
    }
    for (const [api, rule] of Object.entries(FAST_QUOTAS)) {
      const stats = sim.stats.apis[api as keyof typeof FAST_QUOTAS];
      expect(stats.quotaRejections, api).toBe(0);
      expect(maxInSlidingWindow(stats.admittedAt, rule.periodMs), api).toBeLessThanOrEqual(rule.calls);
    }
  }, 120_000);
});

/** Starts of the 10-minute windows in [from, to) with no point, as ISO times. */
function absentWindows(windows: Map<number, number>, from: number, to: number): string[] {
  const absent: string[] = [];
  for (let t = from; t < to; t += 10 * MINUTE) if (!windows.has(t)) absent.push(new Date(t).toISOString());
  return absent;
}

/** What the state dir and the runs say about windows the database lacks: printed only when the check fails. */
function diagnose(dir: string, account: string, absent: string[], outputs: string[]): string {
  const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '(none)');
  const checkpoint = readCheckpoints(join(dir, 'state')).get(`metrics/${account}`);
  return [
    `${absent.length} windows of ${account} absent: ${absent[0]} … ${absent.at(-1)}`,
    `checkpoint: ${JSON.stringify(checkpoint)}`,
    `dead letters: ${read(join(dir, 'dead.jsonl')).slice(0, 2000)}`,
    `set aside: ${read(join(dir, 'state', 'set-aside.json')).slice(0, 2000)}`,
    ...outputs.map((text, run) => `run ${run + 1} stderr: ${text.slice(-3000)}`),
  ].join('\n');
}

/** Replays write the same point again; a TSDB keeps one value per series and time, so count each time once. */
function distinctTimes(
  series: Array<{ values: number[]; timestamps: number[] }>,
  from: number,
  to: number,
): Map<number, number> {
  const byTime = new Map<number, number>();
  for (const s of series) s.timestamps.forEach((t, i) => t >= from && t < to && byTime.set(t, s.values[i]!));
  return byTime;
}
