import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { runCli } from '../helpers/cli.js';
import { FAST_QUOTAS, writeSimConfig } from '../helpers/collector.js';
import { INFLUXD_BIN, serverSkipReason, startInfluxV1, type InfluxV1Server } from '../helpers/servers.js';
import { verifiedDay } from './helpers.js';

const skip = serverSkipReason(INFLUXD_BIN);

/**
 * `verify` ends: it checks the database before it spends any quota, and gives up on an API that fails every call
 * for `verify.giveUpAfter` (its --help promises exit 1), instead of retrying each call up to the limiter's deadline.
 */
describe.skipIf(skip)('verify stops on what it cannot fix (InfluxDB 1.6.7)', () => {
  let sim: Simulator;
  let db: InfluxV1Server;
  const day = verifiedDay();
  const calls = () => sim.stats.apis.statistic.requests + sim.stats.apis.streamstat.requests;

  beforeAll(async () => {
    [sim, db] = await Promise.all([startSimulator({ quotas: FAST_QUOTAS }), startInfluxV1()]);
    await db.query('CREATE DATABASE cdn');
  }, 60_000);

  afterAll(async () => {
    await Promise.all([sim?.close(), db?.stop()]);
  });

  function configWith(database: string, verify: Record<string, unknown> = {}): string {
    const dir = mkdtempSync(join(tmpdir(), 'verify-give-up-'));
    return writeSimConfig(dir, sim, {
      sink: { type: 'influx-v1', url: db.url, database },
      jobs: { metrics: { enabled: false }, dvr: { enabled: false } },
      verify,
    });
  }

  it('a missing database: exit 1 naming CREATE DATABASE, before any statistic or stream views call', async () => {
    const before = calls();
    const from = new Date(day.from).toISOString();
    const result = await runCli(['verify', '--config', configWith('absent'), '--from', from]).exited;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/database absent not found.*CREATE DATABASE "absent".*no API called/);
    expect(calls() - before).toBe(0);
  }, 60_000);

  it('an API that answers 500 to every call: exit 1 once it has failed for verify.giveUpAfter, naming it', async () => {
    sim.faults.set('statistic', { rate: 1, kinds: ['500'] });
    try {
      const config = configWith('cdn', { giveUpAfter: '2s' });
      const result = await runCli(['verify', '--config', config, '--from', new Date(day.from).toISOString()]).exited;
      expect(result.code).toBe(1);
      const gaveUp = /error: statistic API failed every call for \d+s \(HTTP 500\): giving up \(verify.giveUpAfter 2s/;
      expect(result.stderr).toMatch(gaveUp);
    } finally {
      sim.faults.set('statistic', undefined);
    }
  }, 90_000);
});
