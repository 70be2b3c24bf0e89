import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gatherStatus } from '../../src/cli/status/status-report.js';
import { parseConfig } from '../../src/config/loader.js';
import { writeDaemonStatus, type DaemonStatus } from '../../src/state/daemon-status.js';
import { CheckpointStore } from '../../src/state/checkpoints.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

const HOUR = 3_600_000;

/** A configuration of statistics (totals and countries) and one DVR stream, on a fresh state directory. */
function setUp(accounts: string[] | 'auto') {
  const dir = mkdtempSync(join(tmpdir(), 'status-jobs-'));
  dirs.push(dir);
  const config = parseConfig(
    {
      api: { baseUrl: 'http://127.0.0.1:1', token: 'status-jobs-token' },
      accounts,
      jobs: {
        metrics: { enabled: false },
        streamstat: { enabled: false },
        statistic: { groupings: ['total', 'countries'] },
        dvr: { streams: [{ account: 'acme', stream: 'live/main' }] },
      },
      sink: { type: 'file', path: join(dir, 'out.lp') },
      state: { dir },
    },
    {},
  );
  return { dir, config };
}

async function confirm(dir: string, keys: Record<string, number>): Promise<void> {
  const store = await CheckpointStore.open(dir);
  for (const [key, to] of Object.entries(keys)) await store.confirm(key, { from: to - HOUR, to });
  await store.close();
}

const keysOf = (jobs: Array<{ key: string; configured: boolean }>) => jobs.map((j) => [j.key, j.configured]);

describe('status lists the jobs the daemon runs', () => {
  it('explicit accounts, no daemon: one shared totals job, DVR, jobs without a checkpoint', async () => {
    const { dir, config } = setUp(['acme', 'globex']);
    const at = Date.parse('2026-11-28T10:00:00Z');
    await confirm(dir, { 'statistic/acme/total': at, 'statistic/globex/total': at - HOUR, 'statistic/gone/codes': at });
    const report = await gatherStatus(config, at + HOUR);
    expect(keysOf(report.jobs)).toEqual([
      ['dvr/acme/live/main', true],
      ['statistic/*/total', true],
      ['statistic/acme/countries', true],
      ['statistic/globex/countries', true],
      ['statistic/gone/codes', false],
    ]);
    const totals = report.jobs.find((j) => j.key === 'statistic/*/total')!;
    expect(totals.watermark).toBe(new Date(at - HOUR).toISOString());
    expect(totals.checkpoints).toEqual({
      'statistic/acme/total': new Date(at).toISOString(),
      'statistic/globex/total': new Date(at - HOUR).toISOString(),
    });
    expect(report.jobs.find((j) => j.key === 'dvr/acme/live/main')).toMatchObject({
      checkpointed: false,
      watermark: null,
    });
  });

  it('accounts: auto, no daemon: the jobs of the accounts its last report named, every one configured', async () => {
    const { dir, config } = setUp('auto');
    const now = Date.now();
    const stopped: DaemonStatus = {
      pid: 1,
      host: hostname(),
      updatedAt: now - HOUR,
      stoppedAt: now - HOUR,
      jobs: {},
      apis: {},
      accounts: ['acme', 'globex'],
    };
    await writeDaemonStatus(dir, stopped);
    await confirm(dir, { 'statistic/acme/countries': now - 2 * HOUR });
    const report = await gatherStatus(config, now);
    expect(keysOf(report.jobs)).toEqual([
      ['dvr/acme/live/main', true],
      ['statistic/*/total', true],
      ['statistic/acme/countries', true],
      ['statistic/globex/countries', true],
    ]);
  });

  it('accounts: auto after run --once only (no daemon report): the accounts the state directory keeps', async () => {
    const { dir, config } = setUp('auto');
    const now = Date.now();
    await confirm(dir, { 'statistic/acme/countries': now - 2 * HOUR, 'statistic/globex/total': now - 2 * HOUR });
    const report = await gatherStatus(config, now);
    expect(keysOf(report.jobs)).toEqual([
      ['dvr/acme/live/main', true],
      ['statistic/*/total', true],
      ['statistic/acme/countries', true],
      ['statistic/globex/countries', true],
    ]);
  });

  it('a running daemon: exactly the jobs of its report (the list /healthz shows), under the same keys', async () => {
    const { dir, config } = setUp('auto');
    const running: DaemonStatus = {
      pid: process.pid,
      host: hostname(),
      updatedAt: Date.now(),
      jobs: {
        'dvr/acme/live/main': { lagMs: 0, backlog: 0, checkpointed: false },
        'statistic/*/total': { lagMs: 1_000, backlog: 1, keys: ['statistic/acme/total'] },
      },
      apis: {},
      accounts: ['acme'],
    };
    await writeDaemonStatus(dir, running);
    const report = await gatherStatus(config);
    expect(keysOf(report.jobs)).toEqual([
      ['dvr/acme/live/main', true],
      ['statistic/*/total', true],
    ]);
    expect(report.jobs[1]).toMatchObject({ backlog: 1, checkpoints: { 'statistic/acme/total': null } });
  });
});
