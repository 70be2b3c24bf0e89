import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CollectorConfig } from '../../src/config/schema.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { createLogger } from '../../src/log.js';
import { HOUR } from '../../src/time.js';
import { scheduleVerify } from '../../src/verify/job.js';
import { runCli } from '../helpers/cli.js';
import { configFor, FAST_QUOTAS, runtimeFor, writeSimConfig } from '../helpers/collector.js';
import { INFLUXD_BIN, serverSkipReason, startInfluxV1, type InfluxV1Server } from '../helpers/servers.js';
import { collectDay, driftOf, SCHEMA, verify, verifiedDay, verifyConfig } from './helpers.js';

const skip = serverSkipReason(INFLUXD_BIN);

/**
 * On a real InfluxDB 1.6.7: a simulated day reconciles to zero drift; points deleted (InfluxQL DELETE)
 * or altered (another value written at the same series and time) show as the drift they are; --repair re-collects
 * exactly those windows and the re-check is zero.
 */
describe.skipIf(skip)('verify → InfluxDB 1.6.7', () => {
  let sim: Simulator;
  let db: InfluxV1Server;
  let config: CollectorConfig;
  const day = verifiedDay();
  let account: string;

  beforeAll(async () => {
    [sim, db] = await Promise.all([startSimulator({ quotas: FAST_QUOTAS }), startInfluxV1()]);
    await db.query('CREATE DATABASE cdn');
    config = verifyConfig(sim, { type: 'influx-v1', url: db.url, database: 'cdn' });
    account = sim.accounts[0]!;
    await collectDay(config, day);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([sim?.close(), db?.stop()]);
  });

  /**
   * Adds `add` to the integer `field` of the first point of `measurement` that `where` selects, by writing another
   * value at the same series and time (InfluxDB overwrites the point); returns the point's time.
   */
  async function alterFirstPoint(measurement: string, field: string, where: string, add: number): Promise<number> {
    const [series] = await db.series(`SELECT ${field} FROM ${measurement} WHERE ${where} GROUP BY * LIMIT 1`, 'cdn');
    const [time, value] = series!.values[0] as [number, number];
    const tags = Object.entries(series!.tags!)
      .map(([k, v]) => `${k}=${v.replace(/([ ,=])/g, '\\$1')}`)
      .join(',');
    const write = await fetch(`${db.url}/write?db=cdn&precision=ms`, {
      method: 'POST',
      body: `${measurement},${tags} ${field}=${value + add}i ${time}`,
    });
    expect(write.status).toBe(204);
    return time;
  }

  it('a collected day has zero drift over every additive field of every measurement, in a few calls', async () => {
    const calls = () => ({
      statistic: sim.stats.apis.statistic.requests,
      streamstat: sim.stats.apis.streamstat.requests,
    });
    const before = calls();
    const { report, rt } = await verify(config, day);
    const after = calls();
    const n = sim.accounts.length;
    // Statistics: /times/accounts once, /times/<g> per account for resources, countries, codes. Stream views:
    // /accounts once, /<g> per account for streams, stream-types; uniques per account × (total, streams, stream-types)
    // × 2
    // periods. A fresh client may read one more (empty) page where a page is as large as any seen (paging/walk.ts).
    const least = { statistic: 1 + 3 * n, streamstat: 1 + 2 * n + 3 * 2 * n };
    for (const api of ['statistic', 'streamstat'] as const) {
      expect(after[api] - before[api], api).toBeGreaterThanOrEqual(least[api]);
      expect(after[api] - before[api], api).toBeLessThanOrEqual(2 * least[api]);
    }
    expect(report.reader).toBe('influxql');
    expect(driftOf(report.drift)).toEqual([]);
    const compared = new Set(report.checked.map((c) => `${c.measurement}.${c.field}`));
    for (const [m, aggregate] of [
      ['cdn_traffic', 'sum'],
      ['cdn_views', 'sum'],
      ['cdn_users_hourly', 'last'],
      ['cdn_users_daily_by_streams', 'last'],
    ]) {
      const additive = Object.entries(SCHEMA.get(m!)!.fields)
        .filter(([, f]) => f.aggregate === aggregate)
        .map(([name]) => `${m}.${name}`);
      expect(additive.length, m).toBeGreaterThan(0);
      for (const field of additive) expect(compared, field).toContain(field);
    }
    // Every account of the simulator and each configured grouping's measurement was compared (not just one).
    expect(new Set(report.checked.map((c) => c.account))).toEqual(new Set(sim.accounts));
    expect(report.checked.every((c) => c.expected > 0 || c.field !== 'traffic')).toBe(true);
    expect(await rt.telemetry.prometheus()).toMatch(/^cdn_collector_verify_last_run_timestamp_seconds \d/m);
  }, 120_000);

  it('reports deleted and altered points as drift, repairs them, and the re-check is zero', async () => {
    const hour = `time >= ${day.from + 6 * HOUR}ms AND time < ${day.from + 7 * HOUR}ms`;
    const [deleted] = await db.query(
      `SELECT sum(traffic) AS traffic, sum(hits) AS hits FROM cdn_traffic WHERE account = '${account}' AND ${hour}`,
      'cdn',
    );
    expect(Number(deleted?.traffic)).toBeGreaterThan(0);
    await db.query(`DELETE FROM cdn_traffic WHERE account = '${account}' AND ${hour}`, 'cdn');

    const accountHour = `account = '${account}' AND ${hour}`;
    await alterFirstPoint('cdn_views_by_streams', 'views', accountHour, 1000);
    // Unique users are compared per bucket of their own period: one hourly count of one stream, altered.
    const usersAt = await alterFirstPoint('cdn_users_hourly_by_streams', 'unique_users', accountHour, 5);

    const { report } = await verify(config, day);
    const drift = driftOf(report.drift);
    const usersDrift = report.drift.filter((d) => d.measurement === 'cdn_users_hourly_by_streams');
    expect(usersDrift.map((d) => [d.field, d.account, d.time, d.windowMs, d.difference])).toEqual([
      ['unique_users', account, usersAt, HOUR, 5],
    ]);
    expect(drift).toContainEqual({
      measurement: 'cdn_traffic',
      field: 'traffic',
      account,
      difference: -Number(deleted!.traffic),
    });
    expect(drift).toContainEqual({
      measurement: 'cdn_traffic',
      field: 'hits',
      account,
      difference: -Number(deleted!.hits),
    });
    expect(drift).toContainEqual({ measurement: 'cdn_views_by_streams', field: 'views', account, difference: 1000 });
    // Nothing else drifts: other accounts, other measurements are exact.
    expect(new Set(drift.map((d) => `${d.measurement}/${d.account}`))).toEqual(
      new Set([`cdn_traffic/${account}`, `cdn_views_by_streams/${account}`, `cdn_users_hourly_by_streams/${account}`]),
    );

    const repaired = await verify(config, day, true);
    expect(driftOf(repaired.report.drift)).toEqual(drift);
    // The account's totals come from the job that reads every account's totals in one call (statistic/*/total).
    expect(repaired.report.repair!.recollected).toEqual({
      'statistic/*/total': [day.from],
      [`streamstat/${account}/streams`]: [day.from],
      // Only the altered hour of the uniques.
      [`streamstat/${account}/streams/users_hourly`]: [usersAt],
    });
    expect(repaired.report.repair!.after).toEqual([]);
    // The gauge shows the re-check: zero.
    const driftLabels = `measurement_name="cdn_traffic",field_key="traffic",account="${account}"`;
    const driftSeries = `cdn_collector_verify_drift{${driftLabels}}`;
    expect(await repaired.rt.telemetry.prometheus()).toContain(`${driftSeries} 0`);

    const again = await verify(config, day);
    expect(again.report.drift).toEqual([]);
    const [restored] = await db.query(
      `SELECT sum(traffic) AS traffic FROM cdn_traffic WHERE account = '${account}' AND ${hour}`,
      'cdn',
    );
    expect(restored?.traffic).toBe(deleted!.traffic);
  }, 180_000);

  it('the CLI: exit 3 with drift as JSON, --repair exits 0 once the re-check is clean, bad args exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verify-cli-'));
    const jobs = { metrics: { enabled: false }, dvr: { enabled: false } };
    const file = writeSimConfig(dir, sim, {
      accounts: sim.accounts,
      jobs,
      sink: { type: 'influx-v1', url: db.url, database: 'cdn' },
    });
    const fromArg = new Date(day.from).toISOString();
    await db.query(
      `DELETE FROM cdn_views WHERE account = '${account}' AND time >= ${day.from + 12 * HOUR}ms AND time < ` +
        `${day.from + 13 * HOUR}ms`,
      'cdn',
    );

    const found = await runCli(['verify', '--config', file, '--from', fromArg, '--json']).exited;
    expect(found.code, found.stderr).toBe(3);
    const report = JSON.parse(found.stdout) as {
      window: string;
      drift: Array<{ measurement: string; field: string; account: string; difference: number }>;
    };
    expect(report.window).toBe('P1D');
    expect(report.drift.map((d) => [d.measurement, d.field, d.account])).toEqual([['cdn_views', 'views', account]]);
    expect(report.drift[0]!.difference).toBeLessThan(0);

    const repaired = await runCli(['verify', '--config', file, '--from', fromArg, '--repair']).exited;
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stdout).toMatch(/re-check: 0 drifting/);

    const clean = await runCli(['verify', '--config', file, '--from', fromArg, '--to', new Date(day.to).toISOString()])
      .exited;
    expect([clean.code, clean.stdout]).toEqual([0, expect.stringMatching(/series compared, 0 drifting/)]);

    // Whole hours: hourly buckets (PT1H) of the sums, the hourly uniques; the daily uniques are left out.
    const hours = await runCli([
      'verify',
      '--config',
      file,
      '--from',
      new Date(day.from + 6 * HOUR).toISOString(),
      '--to',
      new Date(day.from + 8 * HOUR).toISOString(),
      '--json',
    ]).exited;
    expect(hours.code, hours.stderr).toBe(0);
    const hourly = JSON.parse(hours.stdout) as { window: string; series: number; drift: unknown[] };
    expect([hourly.window, hourly.drift]).toEqual(['PT1H', []]);
    expect(hourly.series).toBeGreaterThan(0);

    for (const args of [
      ['--from', new Date(day.from + 30 * 60_000).toISOString()],
      ['--from', fromArg, '--to', fromArg],
      ['--from', 'Nov 23'],
    ]) {
      const bad = await runCli(['verify', '--config', file, ...args]).exited;
      expect(bad.code, args.join(' ')).toBe(2);
    }
    const fileSink = await runCli(['verify', '--config', writeSimConfig(dir, sim), '--from', fromArg]).exited;
    expect([fileSink.code, fileSink.stderr]).toEqual([2, expect.stringMatching(/sink\.type file/)]);
  }, 180_000);

  it('the daemon job: on its schedule it verifies the last final days ' +
    'and its drift reaches /metrics and cdn_collector points', async () => {
    // Two days: the one collected and yesterday, which nobody collected here — drift the job must report.
    const verifyEverySecond = { schedule: '* * * * * *', days: 2 };
    const rt = await runtimeFor(
      configFor(
        sim,
        { type: 'influx-v1', url: db.url, database: 'cdn' },
        { jobs: { metrics: { enabled: false }, dvr: { enabled: false } }, verify: verifyEverySecond },
      ),
    );
    const task = scheduleVerify(rt, createLogger('warn', { pretty: false }));
    try {
      expect(task).toBeDefined();
      while (!rt.telemetry.samples().some((s) => s.kind === 'verify_last_run'))
        await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await task?.stop();
      await rt.close();
    }
    const views = rt.telemetry
      .samples()
      .find(
        (s) => s.kind === 'verify_drift' && s.labels.measurement_name === 'cdn_views' && s.labels.account === account,
      );
    expect(views?.value).toBeLessThan(0);
    const labels = `measurement_name="cdn_views",field_key="views",account="${account}"`;
    const series = `cdn_collector_verify_drift\\{${labels}\\}`;
    expect(await rt.telemetry.prometheus()).toMatch(new RegExp(`^${series} -\\d+$`, 'm'));

    // Written as cdn_collector points, a dashboard or an alert reads it back.
    const sinkRt = await runtimeFor(config);
    await sinkRt.sink.write(rt.telemetry.toPoints());
    await sinkRt.close();
    const rows = await db.query(
      `SELECT "drift" FROM cdn_collector WHERE kind = 'verify_drift' AND measurement_name = 'cdn_views' AND ` +
        `field_key = 'views' AND account = '${account}'`,
      'cdn',
    );
    expect(rows.map((r) => r.drift)).toEqual([views!.value]);
  }, 120_000);
});
