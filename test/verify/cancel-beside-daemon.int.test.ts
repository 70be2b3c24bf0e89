/**
 * Ctrl-C of a verify handed to the daemon: the command withdraws its request and exits 130, and the daemon, which
 * finds the request gone, ends the verify within a second: its calls waiting for quota leave the limiter and no
 * request or result file stays behind. Before, the daemon went on with the whole check, spending the quota for no one.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { runCli, waitForOutput } from '../helpers/cli.js';
import { FAST_QUOTAS } from '../helpers/collector.js';
import { INFLUXD_BIN, serverSkipReason, startInfluxV1, type InfluxV1Server } from '../helpers/servers.js';
import { ensureBuilt } from '../ops/entry.js';
import { startVerifyDaemon, verifiedDay, type VerifyDaemon } from './helpers.js';

const skip = serverSkipReason(INFLUXD_BIN);

describe.skipIf(skip)('Ctrl-C of a verify handed to the daemon', () => {
  let sim: Simulator;
  let db: InfluxV1Server;
  let beside: VerifyDaemon | undefined;

  beforeAll(async () => {
    ensureBuilt();
    // One statistics call a minute: the verify's calls wait for quota behind the daemon's own.
    const quotas = { ...FAST_QUOTAS, statistic: { calls: 1, periodMs: 60_000 } };
    [sim, db] = await Promise.all([startSimulator({ quotas }), startInfluxV1()]);
    await db.query('CREATE DATABASE cdn');
  }, 60_000);

  afterAll(async () => {
    await beside?.stop();
    await Promise.all([sim?.close(), db?.stop()]);
  });

  it('withdraws the request, exits 130; the daemon ends the verify and drops its queued calls', async () => {
    const { log, text } = capturedLogger();
    beside = await startVerifyDaemon('verify-cancel-', sim, db.url, log);
    const { dir, file, rt } = beside;
    const events = () =>
      text()
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { event?: string }).event);
    const queued = () =>
      (['statistic', 'streamstat'] as const).reduce((n, api) => n + rt.limiters.get(api).snapshot().queuedBackfill, 0);

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
