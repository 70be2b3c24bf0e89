/**
 * Ctrl-C of a verify handed to the daemon: the command withdraws its request and exits 130, and the daemon, which
 * finds the request gone, ends the verify within a second: its calls waiting for quota leave the limiter and no
 * request or result file stays behind. Before, the daemon went on with the whole check, spending the quota for no one.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/app/daemon.js';
import type { Runtime } from '../../src/app/runtime.js';
import { loadConfigFile } from '../../src/config/loader.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { runCli, waitForOutput } from '../helpers/cli.js';
import { FAST_QUOTAS, runtimeFor, writeSimConfig } from '../helpers/collector.js';
import { INFLUXD_BIN, serverSkipReason, startInfluxV1, type InfluxV1Server } from '../helpers/servers.js';
import { ensureBuilt } from '../ops/entry.js';
import { verifiedDay } from './helpers.js';

const skip = serverSkipReason(INFLUXD_BIN);

describe.skipIf(skip)('Ctrl-C of a verify handed to the daemon', () => {
  let sim: Simulator;
  let db: InfluxV1Server;
  let rt: Runtime | undefined;
  let daemon: Daemon | undefined;

  beforeAll(async () => {
    ensureBuilt();
    // One statistics call a minute: the verify's calls wait for quota behind the daemon's own.
    const quotas = { ...FAST_QUOTAS, statistic: { calls: 1, periodMs: 60_000 } };
    [sim, db] = await Promise.all([startSimulator({ quotas }), startInfluxV1()]);
    await db.query('CREATE DATABASE cdn');
  }, 60_000);

  afterAll(async () => {
    await daemon?.stop();
    await rt?.close();
    await Promise.all([sim?.close(), db?.stop()]);
  });

  it('withdraws the request, exits 130; the daemon ends the verify and drops its queued calls', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verify-cancel-'));
    const file = writeSimConfig(dir, sim, {
      accounts: sim.accounts,
      jobs: { metrics: { enabled: false }, dvr: { enabled: false } },
      sink: { type: 'influx-v1', url: db.url, database: 'cdn' },
      log: { level: 'warn' },
    });
    rt = await runtimeFor(loadConfigFile(file));
    const { log, text } = capturedLogger();
    daemon = startDaemon(rt, log);
    const events = () =>
      text()
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { event?: string }).event);
    const queued = () =>
      (['statistic', 'streamstat'] as const).reduce((n, api) => n + rt!.limiters.get(api).snapshot().queuedBackfill, 0);

    const run = runCli(['verify', '--config', file, '--from', new Date(verifiedDay().from).toISOString()]);
    await waitForOutput(run, 'stderr', /handing the verify to it/);
    await expect.poll(() => events().includes('verify_handed_over'), { timeout: 30_000 }).toBe(true);
    await expect.poll(queued, { timeout: 30_000 }).toBeGreaterThan(0);

    run.child.kill('SIGINT');
    const exit = await run.exited;
    expect(exit.code, exit.stderr).toBe(130);
    expect(exit.stderr).toMatch(/verify stopped by SIGINT: its request is withdrawn/);

    await expect.poll(() => events().includes('verify_cancelled'), { timeout: 15_000 }).toBe(true);
    expect(queued()).toBe(0);
    const verifyDir = join(dir, 'state', 'verify');
    expect(existsSync(verifyDir) ? readdirSync(verifyDir) : []).toEqual([]);
  }, 120_000);
});
