/**
 * `verify` beside a running daemon on the same state directory: the daemon holds the lock, the quota and the sink,
 * so the command hands the check (and its repair) over to it, as `backfill` does, instead of refusing the lock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { HOUR } from '../../src/time.js';
import { runCli } from '../helpers/cli.js';
import { FAST_QUOTAS } from '../helpers/collector.js';
import { INFLUXD_BIN, serverSkipReason, startInfluxV1, type InfluxV1Server } from '../helpers/servers.js';
import { ensureBuilt } from '../ops/entry.js';
import { collectDay, startVerifyDaemon, verifiedDay, verifyConfig, type VerifyDaemon } from './helpers.js';

const skip = serverSkipReason(INFLUXD_BIN);

describe.skipIf(skip)('verify beside a running daemon', () => {
  let sim: Simulator;
  let db: InfluxV1Server;
  let beside: VerifyDaemon | undefined;
  const day = verifiedDay();

  beforeAll(async () => {
    ensureBuilt();
    [sim, db] = await Promise.all([startSimulator({ quotas: FAST_QUOTAS }), startInfluxV1()]);
    await db.query('CREATE DATABASE cdn');
    await collectDay(verifyConfig(sim, { type: 'influx-v1', url: db.url, database: 'cdn' }), day);
  }, 180_000);

  afterAll(async () => {
    await beside?.stop();
    await Promise.all([sim?.close(), db?.stop()]);
  });

  it('hands the check and the repair to the daemon: drift exit 3, --repair exit 0, then clean', async () => {
    beside = await startVerifyDaemon('verify-beside-', sim, db.url, createLogger('warn', { pretty: false }));
    const { file } = beside;
    const account = sim.accounts[0]!;
    await db.query(
      `DELETE FROM cdn_views WHERE account = '${account}' AND time >= ${day.from + 12 * HOUR}ms AND time < ` +
        `${day.from + 13 * HOUR}ms`,
      'cdn',
    );
    const fromArg = new Date(day.from).toISOString();

    const found = await runCli(['verify', '--config', file, '--from', fromArg, '--json']).exited;
    expect(found.code, found.stderr).toBe(3);
    expect(found.stderr).toMatch(/a daemon holds \S+: handing the verify to it/);
    const report = JSON.parse(found.stdout) as { drift: Array<{ measurement: string; account: string }> };
    expect(report.drift.map((d) => [d.measurement, d.account])).toEqual([['cdn_views', account]]);

    const repaired = await runCli(['verify', '--config', file, '--from', fromArg, '--repair']).exited;
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stdout).toMatch(/re-check: 0 drifting/);

    const clean = await runCli(['verify', '--config', file, '--from', fromArg]).exited;
    expect([clean.code, clean.stdout]).toEqual([0, expect.stringMatching(/series compared, 0 drifting/)]);
  }, 180_000);
});
