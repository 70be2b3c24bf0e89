import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { API_NAMES, perApi, type ApiName } from '../../src/spec/apis.js';
import { FAULT_KINDS, type FaultPlan } from '../../src/sim/faults.js';
import { configQuotasOf } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { maxInSlidingWindow } from '../../src/sim/stats.js';
import { StatisticClient } from '../../src/sources/statistic/client.js';
import { StreamstatClient } from '../../src/sources/streamstat/client.js';
import { HOUR, MINUTE } from '../../src/time.js';
import { FAST_QUOTAS } from '../helpers/collector.js';
import { INFLUXD_BIN, serverSkipReason, startInfluxV1, type InfluxV1Server } from '../helpers/servers.js';
import { backfillArgs, runCli } from '../helpers/cli.js';
import { finalHoursWithinOneDay } from '../helpers/ranges.js';
import { confirmedMs, readCheckpoints, readDeadLetters, regressions, type Checkpoint } from '../helpers/state-files.js';

const skip = serverSkipReason(INFLUXD_BIN);
/** 20 % of the calls of every API fail, with every kind; a slow answer (3 s) outlasts the collector's 2 s timeout. */
const FAULTS: FaultPlan = { rate: 0.2, kinds: [...FAULT_KINDS], slowMs: 3000, retryAfterSec: 1 };
/** The APIs a backfill calls (not the DVR's). */
const CALLED: readonly ApiName[] = API_NAMES.filter((api) => api !== 'dvr');
/**
 * Each called API starts with a share of the kinds, one fault every other call, so that every kind is injected and
 * every API meets a fault: drawn at 20 % alone, an API that makes few calls (stream views) met none now and then.
 */
const faultsOf = (api: ApiName): FaultPlan => {
  const share = FAULT_KINDS.filter((_, k) => k % CALLED.length === CALLED.indexOf(api));
  return { ...FAULTS, script: share.flatMap((kind) => [kind, 'ok' as const]) };
};
/** Fractions of the work (confirmed time in the checkpoints) at which the collector is killed, then InfluxDB restarted.
 * */
const KILLS = [0.25, 0.5];
const DB_RESTART_AT = 0.7;
/** What the collector says when a write fails. */
const OUTAGE = /sink influx-v1 write failed/;
const delay = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/**
 * Chaos: the collector backfills 12 simulated hours into a real InfluxDB 1.6.7 while every API fails 20 % of its calls,
 * is killed with -9 twice, and sees InfluxDB killed and restarted under it; a planted field-type conflict makes the
 * database refuse the metrics points of one hour for good. Afterwards the data, the quotas, the checkpoints and the
 * dead letters must all be exactly right.
 */
/**
 * Checkpoints of the jobs a backfill of both accounts keeps: metrics and metrics_resource (2 × 2), statistic
 * groupings codes, countries, resources (2 × 3), each account's total (2) plus the shared totals job's own watermark
 * (1), stream views total, streams, stream-types (2 × 3) with their hourly uniques (2 × 3).
 */
const CHECKPOINTS = 25;

describe.skipIf(skip)('chaos: faults on every API, kill -9 twice, InfluxDB restarted mid-run', () => {
  let sim: Simulator;
  let db: InfluxV1Server;
  const dir = mkdtempSync(join(tmpdir(), 'chaos-'));
  const stateDir = join(dir, 'state');
  const deadLetterPath = join(dir, 'dead-letters.jsonl');
  const { from, to } = finalHoursWithinOneDay(12);
  /** The hour whose cdn_metrics points InfluxDB rejects (a string field planted in its 1 h shard). */
  const conflict = { from: from + 6 * HOUR, to: from + 7 * HOUR };
  const runs: Array<{ code: number | null; signal: string | null; sawOutage: boolean }> = [];
  const backwards: string[] = [];

  beforeAll(async () => {
    [sim, db] = await Promise.all([startSimulator({ quotas: FAST_QUOTAS, faults: perApi(faultsOf) }), startInfluxV1()]);
    // 1 h shards: field types are per shard, so the conflict stays inside one hour.
    await db.query('CREATE DATABASE cdn WITH SHARD DURATION 1h');
    const planted = await request(`${db.url}/write?db=cdn&precision=s`, {
      method: 'POST',
      body: `cdn_metrics,account=planted edge_requests_total="conflict" ${conflict.from / 1000}`,
    });
    expect(planted.statusCode).toBe(204);
    await planted.body.dump();

    const config = join(dir, 'collector.yaml');
    writeFileSync(
      config,
      JSON.stringify({
        api: { baseUrl: sim.url, token: sim.token, timeout: '2s' },
        accounts: sim.accounts,
        quotas: configQuotasOf(sim.quota),
        sink: { type: 'influx-v1', url: db.url, database: 'cdn' },
        output: { deadLetterPath },
        state: { dir: stateDir },
        log: { level: 'warn' },
      }),
    );
    const args = backfillArgs(config, from, to);
    const total = CHECKPOINTS * (to - from); // every checkpoint covers the whole range in the end

    let last = new Map<string, Checkpoint>();
    let restart: Promise<void> | undefined;
    const run = async (onProgress: (fraction: number, kill: () => void, failedWrite: Promise<void>) => void) => {
      const cli = runCli(args);
      const failedWrite = new Promise<void>((seen) =>
        cli.child.stderr!.on('data', (c: Buffer) => OUTAGE.test(c.toString()) && seen()),
      );
      const poll = setInterval(() => {
        const now = readCheckpoints(stateDir);
        backwards.push(...regressions(last, now));
        last = now;
        onProgress(confirmedMs(now) / total, () => cli.child.kill('SIGKILL'), failedWrite);
      }, 50);
      const result = await cli.exited;
      clearInterval(poll);
      backwards.push(...regressions(last, readCheckpoints(stateDir)));
      const sawOutage = OUTAGE.test(result.stderr);
      runs.push({ code: result.code, signal: result.signal, sawOutage });
      // No pause before the restart: the quota journal in the state dir tells the new process what the old one spent.
    };
    for (const at of KILLS) await run((f, kill) => f >= at && kill());
    for (let attempt = 0; attempt < 6 && runs.at(-1)?.code !== 0; attempt++) {
      // Down for 2 s at least, and until the run has met the outage (a run that waits on quotas may not write for a
      // while on a loaded machine), 30 s at most.
      await run((f, _kill, failedWrite) => {
        if (f >= DB_RESTART_AT && !restart) restart = db.restart(2000, Promise.race([failedWrite, delay(30_000)]));
      });
      await restart;
    }
  }, 170_000);

  afterAll(async () => {
    await Promise.all([sim?.close(), db?.stop()]);
  });

  it('was killed twice mid-run, wrote through the database going away, and finished', () => {
    expect(runs.slice(0, 2).map((r) => r.signal)).toEqual(['SIGKILL', 'SIGKILL']);
    expect(runs.at(-1)).toMatchObject({ code: 0, signal: null });
    expect(
      runs.some((r) => r.sawOutage),
      'a run saw the outage',
    ).toBe(true);
  });

  it('injected every kind of fault on the APIs it called', () => {
    const seen = new Set(API_NAMES.flatMap((api) => Object.keys(sim.faults.injected[api])));
    expect([...seen].sort()).toEqual([...FAULT_KINDS].sort());
    for (const api of CALLED) {
      expect(
        Object.values(sim.faults.injected[api]).reduce((a, b) => a + b, 0),
        api,
      ).toBeGreaterThan(0);
    }
  });

  it('never exceeded a sliding quota window (the server never had to refuse a call)', () => {
    for (const [api, rule] of Object.entries(FAST_QUOTAS)) {
      const stats = sim.stats.apis[api as ApiName];
      expect(stats.quotaRejections, api).toBe(0);
      expect(maxInSlidingWindow(stats.admittedAt, rule.periodMs), api).toBeLessThanOrEqual(rule.calls);
    }
  });

  it('checkpoints never moved backwards, and every job is confirmed over the whole range', () => {
    expect(backwards).toEqual([]);
    const checkpoints = readCheckpoints(stateDir);
    expect(checkpoints.size, [...checkpoints.keys()].sort().join(' ')).toBe(CHECKPOINTS);
    for (const cp of checkpoints.values()) {
      expect(
        cp.spans.some(([f, t]) => f <= from && to <= t),
        cp.key,
      ).toBe(true);
    }
  });

  it('holds every window with the simulator’s exact totals, per account', async () => {
    for (const api of API_NAMES) sim.faults.set(api, undefined);
    const http = new HttpClient({ baseUrl: sim.url, token: sim.token });
    const statistic = new StatisticClient(http);
    const streamstat = new StreamstatClient(http);
    const sum = async (select: string, where: string, range = { from, to }) =>
      (
        await db.query(`SELECT ${select} FROM ${where} AND time >= ${range.from}ms AND time < ${range.to}ms`, 'cdn')
      )[0] ?? {};
    const outside = async (select: string, where: string) => {
      const [a, b] = await Promise.all([
        sum(select, where, { from, to: conflict.from }),
        sum(select, where, { from: conflict.to, to }),
      ]);
      return Number(a.v ?? 0) + Number(b.v ?? 0);
    };
    for (const account of sim.accounts) {
      const where = (m: string, extra = '') => `${m} WHERE account = '${account}'${extra}`;
      const traffic = (await statistic.total({ account, start: from, end: to })).body;
      expect(await sum('sum(traffic) AS traffic, sum(hits) AS hits', where('cdn_traffic'))).toMatchObject({
        traffic: traffic.traffic,
        hits: traffic.hits,
      });
      const views = await streamstat.total({ account, start: from, end: to });
      expect((await sum('sum(views) AS v', where('cdn_views'))).v).toBe(views.views);
      // Metrics edge requests equal statistics hits, window by window; the rejected hour is compared outside it.
      expect((await sum('sum(edge_requests_total) AS v', where('cdn_metrics_resource'))).v).toBe(traffic.hits);
      expect(await outside('sum(edge_requests_total) AS v', where('cdn_metrics'))).toBe(
        await outside('sum(hits) AS v', where('cdn_traffic')),
      );
    }
    await http.close();
  });

  it('has exactly one point per window and series', async () => {
    const count = async (select: string, measurement: string, groupBy: string) =>
      (
        await db.query(
          `SELECT ${select} FROM ${measurement} WHERE time >= ${from}ms AND time < ${to}ms GROUP BY ${groupBy}`,
          'cdn',
        )
      )
        .filter((r) => sim.accounts.includes(String(r.account)))
        .map((r) => r.count);
    const windows = (to - from) / (10 * MINUTE);
    const buckets = (to - from) / (5 * MINUTE);
    const lost = (conflict.to - conflict.from) / (10 * MINUTE);
    expect(await count('count(edge_requests_total)', 'cdn_metrics', 'account')).toEqual(
      sim.accounts.map(() => windows - lost),
    );
    const resources = sim.world.accounts.reduce((n, a) => n + a.resources.length, 0);
    expect(await count('count(edge_requests_total)', 'cdn_metrics_resource', 'account, resource')).toEqual(
      Array.from({ length: resources }, () => windows),
    );
    // cdn_traffic and cdn_views hold the account totals alone (no grouping tag).
    for (const [measurement, field] of [
      ['cdn_traffic', 'hits'],
      ['cdn_views', 'views'],
    ] as const) {
      const rows = await db.query(
        `SELECT count(${field}) FROM ${measurement} WHERE time >= ${from}ms AND time < ${to}ms GROUP BY account`,
        'cdn',
      );
      expect(
        rows.map((r) => [r.account, r.count]),
        measurement,
      ).toEqual(sim.accounts.map((a) => [a, buckets]));
    }
  });

  it('dead-lettered every point the database refused, and nothing else', async () => {
    const letters = readDeadLetters(deadLetterPath);
    for (const letter of letters) {
      expect(letter.status).toBe(400);
      expect(letter.reason).toMatch(/field type conflict/);
    }
    const refused = new Set(
      letters
        .flatMap((l) => l.lines)
        .map((line) => {
          const m = /^cdn_metrics,account=(\S+) .* (\d+)$/.exec(line);
          expect(m, line).not.toBeNull();
          const time = Number(m![2]) * 1000;
          expect(time >= conflict.from && time < conflict.to, line).toBe(true);
          return `${m![1]} ${time}`;
        }),
    );
    const expected = sim.accounts.flatMap((a) =>
      Array.from(
        { length: (conflict.to - conflict.from) / (10 * MINUTE) },
        (_, i) => `${a} ${conflict.from + i * 10 * MINUTE}`,
      ),
    );
    expect([...refused].sort()).toEqual(expected.sort());
  });
});
