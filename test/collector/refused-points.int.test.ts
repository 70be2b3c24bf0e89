import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFUSED_CONDITION } from '../../src/telemetry/refusal-reports.js';
import type { Runtime } from '../../src/app/runtime.js';
import { configQuotasOf, scaledQuotas } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { startTelemetryServer } from '../../src/telemetry/server.js';
import { HOUR, MINUTE } from '../../src/time.js';
import { runCli } from '../helpers/cli.js';
import { configFor, runtimeFor } from '../helpers/collector.js';
import { INFLUXD_BIN, serverSkipReason, startInfluxV1, type InfluxV1Server } from '../helpers/servers.js';
import { ensureBuilt } from '../ops/entry.js';

/** Wait bound of a CLI process (not an assertion). */
const PROCESS_LIMIT_MS = 120_000;
const METRICS_ONLY = {
  metrics: { window: '10m', byResource: false },
  statistic: { enabled: false },
  streamstat: { enabled: false },
  dvr: { enabled: false },
};

interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}
const logLines = (stderr: string): LogLine[] =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

/**
 * Points a real InfluxDB 1.6.7 refuses for good are dead-lettered, and said so: an error line with the cause and the
 * fix, the count in the verdict and summary, a non-zero exit, /healthz and /metrics, and `status`. Their spans are
 * confirmed (rewriting them cannot succeed; docs/faults.md).
 */
describe.skipIf(serverSkipReason(INFLUXD_BIN) !== undefined)('points the database refuses for good', () => {
  let sim: Simulator;
  let db: InfluxV1Server;
  let account: string;

  beforeAll(async () => {
    ensureBuilt();
    [sim, db] = await Promise.all([startSimulator({ quotas: scaledQuotas(2000) }), startInfluxV1()]);
    account = sim.accounts[0]!;
  }, 120_000);
  afterAll(async () => {
    await Promise.all([sim?.close(), db?.stop()]);
  });

  /** `edge_requests_total` of cdn_metrics written as a string by "another tool", in the shards `times` fall in. */
  async function conflictingField(database: string, times: number[]): Promise<void> {
    const body = times.map((t) => `cdn_metrics,account=other edge_requests_total="many" ${t}`).join('\n');
    const res = await request(`${db.url}/write?db=${database}&precision=ms`, { method: 'POST', body });
    expect(res.statusCode, await res.body.text()).toBe(204);
  }

  function cliConfig(database: string, initialLookback = '30m'): { path: string; deadLetters: string } {
    const dir = mkdtempSync(join(tmpdir(), 'refused-'));
    const path = join(dir, 'collector.yaml');
    const deadLetters = join(dir, 'dead-letters.jsonl');
    writeFileSync(
      path,
      stringify({
        api: { baseUrl: sim.url, token: sim.token },
        accounts: [account],
        quotas: configQuotasOf(sim.quota),
        jobs: METRICS_ONLY,
        sink: { type: 'influx-v1', url: db.url, database },
        output: { deadLetterPath: deadLetters },
        state: { dir: join(dir, 'state'), initialLookback },
      }),
    );
    return { path, deadLetters };
  }

  it(
    'run --once into a field of another type: POINTS REFUSED, exit 5, an error line naming the field and the fix; ' +
      'status lists them',
    async () => {
      await db.query('CREATE DATABASE typed');
      await conflictingField('typed', [Date.now(), Date.now() - HOUR]);
      const cfg = cliConfig('typed');
      const exit = await runCli(['run', '--config', cfg.path, '--once'], {}, { killAfterMs: PROCESS_LIMIT_MS }).exited;
      expect(exit.code, exit.stdout + exit.stderr).toBe(5);
      const verdict = new RegExp(
        /^once: POINTS REFUSED: [1-9]\d* windows collected, 0 set aside, 0 failed; /.source +
          /(\d+) points, (\d+) points refused by the database \(dead letters\);/.source,
        'm',
      ).exec(exit.stdout);
      expect(verdict, exit.stdout).not.toBeNull();
      expect(Number(verdict![2])).toBe(Number(verdict![1]));
      const errors = logLines(exit.stderr).filter((l) => l.level === 50);
      expect(errors, exit.stderr).toHaveLength(1); // once, not once per window
      expect(errors[0]).toMatchObject({
        cause: 'field-type-conflict',
        measurements: ['cdn_metrics'],
        deadLetters: cfg.deadLetters,
      });
      expect(errors[0]!.msg).toMatch(
        new RegExp(
          /^points refused by the database \(field-type-conflict\), kept as dead letters: /.source +
            /cdn_metrics\.edge_requests_total is stored as string .*the collector writes integer/.source,
        ),
      );
      expect(
        await db.query("SELECT count(edge_requests_total) FROM cdn_metrics WHERE account != 'other'", 'typed'),
      ).toEqual([]);

      const status = await runCli(['status', '--config', cfg.path], {}, { killAfterMs: PROCESS_LIMIT_MS }).exited;
      expect(status.stdout).toMatch(
        new RegExp(
          `^points refused \\(field-type-conflict\\): ${verdict![2]} from \\S+ to \\S+, ` +
            'last: .*field type conflict.*; fix: cdn_metrics\\.edge_requests_total is stored as string',
          'm',
        ),
      );
    },
    PROCESS_LIMIT_MS,
  );

  it(
    'backfill 4 h into a 1 h retention policy: warned before it starts, the refused count in the summary, exit 5; ' +
      'the range counts as collected',
    async () => {
      await db.query('CREATE DATABASE short');
      await db.query('CREATE RETENTION POLICY "hour" ON "short" DURATION 1h REPLICATION 1 DEFAULT');
      const cfg = cliConfig('short', '10m');
      const from = new Date(Math.floor((Date.now() - 4 * HOUR) / (10 * MINUTE)) * 10 * MINUTE).toISOString();
      // An end of its own: without one, a window falling due between this run and the dry run below is the dry run's.
      const to = new Date(Math.floor((Date.now() - 20 * MINUTE) / (10 * MINUTE)) * 10 * MINUTE).toISOString();
      const exit = await runCli(
        ['backfill', '--config', cfg.path, '--from', from, '--to', to],
        {},
        { killAfterMs: PROCESS_LIMIT_MS },
      ).exited;
      expect(exit.code, exit.stderr).toBe(5);
      const warning = exit.stderr.indexOf(
        'warning: the range starts before what the retention policy "hour" of database "short" keeps (1 h)',
      );
      const done = /^backfill done: (\d+)\/\1 spans?, (\d+) points? \((\d+) points? refused by the database\) /m.exec(
        exit.stderr,
      );
      expect(warning, exit.stderr).toBeGreaterThanOrEqual(0);
      expect(done, exit.stderr).not.toBeNull();
      expect(warning).toBeLessThan(done!.index);
      const [points, refused] = [Number(done![2]), Number(done![3])];
      expect(refused).toBeGreaterThan(0);
      expect(refused).toBeLessThan(points); // the last hour is stored
      const stored = await db.query('SELECT count(edge_requests_total) FROM cdn_metrics', 'short');
      expect(stored[0]?.count).toBe(points - refused);
      expect(exit.stderr).toMatch(
        new RegExp(
          /"cause":"beyond-retention"[^\n]*/.source +
            /points refused by the database \(beyond-retention\), kept as dead letters: [^\n]*ALTER RETENTION POLICY/
              .source,
        ),
      );
      expect(exit.stderr).toMatch(
        /^error: backfill: \d+ points refused by the database for good, kept as dead letters/m,
      );
      // The documented choice: the spans are confirmed, a rerun has nothing left to do (the points are dead letters).
      const again = await runCli(
        ['backfill', '--config', cfg.path, '--from', from, '--to', to, '--dry-run', '--json'],
        {},
        { killAfterMs: PROCESS_LIMIT_MS },
      ).exited;
      expect(JSON.parse(again.stdout).jobs).toEqual([expect.objectContaining({ spans: 0 })]);
    },
    PROCESS_LIMIT_MS,
  );

  describe('in the daemon', () => {
    let rt: Runtime;
    beforeAll(async () => {
      await db.query('CREATE DATABASE daemon');
      await conflictingField('daemon', [Date.now(), Date.now() - 2 * HOUR]);
      rt = await runtimeFor(
        configFor(
          sim,
          { type: 'influx-v1', url: db.url, database: 'daemon' },
          { accounts: [account], jobs: METRICS_ONLY },
        ),
      );
    });
    afterAll(async () => rt?.close());

    it(
      '/healthz is 503 with sink:refused naming the fix while they continue, ' +
        '/metrics counts them; a clean write of the measurement clears it',
      async () => {
        const job = rt.collector.jobs.find((j) => j.api === 'metrics')!;
        const end = Math.floor(Date.now() / HOUR) * HOUR - HOUR;
        const refused = await rt.collector.runOnce(job, 'backfill', { from: end - HOUR, to: end });
        expect(refused).toMatchObject({ spans: 6, refused: refused.points });
        expect(rt.collector.pending(job, { from: end - HOUR, to: end })).toEqual([]);
        const server = await startTelemetryServer({ telemetry: rt.telemetry, port: 0, maxLagMs: 24 * HOUR });
        try {
          const health = await request(`${server.url}/healthz`);
          const body = (await health.body.json()) as { reasons?: Record<string, string> };
          expect(health.statusCode).toBe(503);
          expect(body.reasons?.[REFUSED_CONDITION]).toMatch(
            new RegExp(
              /^cdn_metrics: \d+ points? refused \(field-type-conflict\)/.source +
                /.*fix: cdn_metrics\.edge_requests_total is stored as string/.source,
            ),
          );
          const metrics = await (await request(`${server.url}/metrics`)).body.text();
          expect(metrics).toContain(
            `cdn_collector_points_refused_total{cause="field-type-conflict"} ${refused.points}`,
          );

          await db.query('DROP MEASUREMENT cdn_metrics', 'daemon');
          const clean = await rt.collector.runOnce(job, 'backfill', { from: end - 2 * HOUR, to: end - HOUR });
          expect(clean).toMatchObject({ spans: 6 });
          expect(clean.refused).toBeUndefined();
          expect(rt.telemetry.activeConditions()).not.toHaveProperty(REFUSED_CONDITION);
        } finally {
          await server.close();
        }
      },
    );
  });
});
