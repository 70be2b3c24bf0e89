/**
 * `status` names what /healthz names about failing dependencies, from the same record: a daemon (in process, on a
 * ManualClock, cron passes every second) whose metrics API answers 500 to every call (the simulator's fault
 * injection), then whose database fails a write. Each retry waits on the manual clock, and the database stand-in
 * holds every write until the test answers it, so nothing changes the record between the test's looks at /healthz and
 * at `status` (the daemon's report, rewritten every second).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDaemon, type Daemon } from '../../src/app/daemon.js';
import { createRuntime, type Runtime } from '../../src/app/runtime.js';
import { gatherStatus, type StatusReport } from '../../src/cli/status/status-report.js';
import { loadConfigFile } from '../../src/config/loader.js';
import type { CollectorConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { evaluateHealth } from '../../src/telemetry/health.js';
import { runCli } from '../helpers/cli.js';
import { onlyJobs, writeSimConfig } from '../helpers/collector.js';
import { loopbackServer, type LoopbackServer } from '../helpers/loopback.js';
import { ensureBuilt } from '../ops/entry.js';

const MIN = 60_000;
/** A bound on each wait (the report is rewritten every second), never an assertion. */
const WAIT = { timeout: 30_000, interval: 50 };
const iso = (ms: number) => new Date(ms).toISOString();

describe('status and /healthz name the same failing API and sink', () => {
  const clock = new ManualClock(Math.floor(Date.now() / MIN) * MIN - 60 * MIN + 30_000);
  const started = clock.now();
  const dir = mkdtempSync(join(tmpdir(), 'isolation-failing-'));
  /** While true, the database stand-in holds each write for the test to answer; else it confirms at once. */
  let holding = false;
  const held: ServerResponse[] = [];
  /** The metrics API's failed calls and the waits of the retries after them, as the limiter reported them. */
  let failedCalls = 0;
  let servedCalls = 0;
  const retryWaits: number[] = [];
  let sim: Simulator;
  let db: LoopbackServer;
  let file: string;
  let config: CollectorConfig;
  let rt: Runtime;
  let daemon: Daemon;

  const answer = (res: ServerResponse, status: 204 | 500) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(status === 500 ? '{"error":"down"}' : undefined);

  beforeAll(async () => {
    ensureBuilt(); // `status` runs as its own process too
    sim = await startSimulator({ clock, quotas: NO_QUOTAS, world: { accounts: 1 } });
    db = await loopbackServer((req, res) => {
      req.resume().on('end', () => {
        if (holding && req.url?.startsWith('/write')) held.push(res);
        else answer(res, 204);
      });
    });
    sim.faults.set('metrics', { rate: 1, kinds: ['500'] });
    file = writeSimConfig(dir, sim, {
      accounts: sim.accounts.slice(0, 1),
      jobs: onlyJobs({ metrics: { window: '1m', delay: '1s', byResource: false, schedule: '* * * * * *' } }),
      sink: { type: 'influx-v1', url: db.url, database: 'cdn' },
      output: { deadLetterPath: join(dir, 'dead.jsonl') },
      state: { dir: join(dir, 'state'), initialLookback: '3m' },
      http: { maxLag: '1h', apiFailingAfter: '1m', sinkFailingAfter: '1m' },
      log: { level: 'error' },
    });
    config = loadConfigFile(file);
    rt = await createRuntime(config, clock, createLogger('error', { pretty: false }));
    // Emitted after telemetry recorded the call: a count here is a count in the record.
    rt.onLimiterEvent((e) => {
      if (e.api !== 'metrics') return;
      if (e.type === 'call') e.status === 500 ? failedCalls++ : servedCalls++;
      if (e.type === 'retry') retryWaits.push(e.waitMs ?? 0);
    });
    daemon = startDaemon(rt, createLogger('error', { pretty: false }));
  });

  afterAll(async () => {
    holding = false;
    for (const res of held.splice(0)) answer(res, 204);
    await daemon?.stop();
    await rt?.close();
    await sim?.close();
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const health = () => evaluateHealth(rt.telemetry, { maxLagMs: config.http.maxLag }, clock.now());
  /** `status` as of a daemon report written after `wallMs` (real time): the record as it is now, not before. */
  const statusAfter = (wallMs: number) =>
    vi.waitFor(async () => {
      const report = await gatherStatus(config);
      expect(Date.parse(report.daemon?.reportedAt ?? '')).toBeGreaterThanOrEqual(wallMs);
      return report;
    }, WAIT);
  /** The `status` command's plain lines (a separate process reading the same report). */
  const statusLines = async () => {
    const { code, stdout } = await runCli(['status', '--config', file]).exited;
    expect(code).toBe(0);
    return stdout.split('\n');
  };
  const jsonStatus = async () => {
    const { code, stdout } = await runCli(['status', '--config', file, '--json']).exited;
    expect(code).toBe(0);
    return JSON.parse(stdout) as StatusReport;
  };
  const failingLines = (lines: string[]) => lines.filter((l) => / failing since /.test(l));

  it('an API failing every call: the start, count and last status of /healthz; nothing once it serves', async () => {
    // The first call fails at the start; each retry waits on the manual clock, so each move lets one more through
    // (more, when the backoff drew no wait at all).
    await vi.waitFor(() => expect(retryWaits.length).toBeGreaterThanOrEqual(1), WAIT);
    clock.advance(MIN); // past http.apiFailingAfter; the first retry's wait is under a second
    await vi.waitFor(() => expect(retryWaits.length).toBeGreaterThanOrEqual(2), WAIT);
    clock.advance(1_000); // the second retry's wait is under a second too
    // At least three failed calls (a minimum for /healthz), the last one's retry waiting for the clock: the record
    // holds still.
    await vi.waitFor(() => {
      expect(retryWaits).toHaveLength(failedCalls);
      expect(failedCalls).toBeGreaterThanOrEqual(3);
      expect(retryWaits.at(-1)).toBeGreaterThan(0);
    }, WAIT);
    expect(servedCalls).toBe(0);

    const healthz = health();
    expect(Object.keys(healthz.reasons ?? {})).toEqual(['api:metrics']);
    const named = /since (\S+), last: (\d+)\)$/.exec(healthz.reasons!['api:metrics']!);
    expect(named?.slice(1)).toEqual([iso(started), '500']);
    const report = await statusAfter(Date.now());
    expect(report.failing).toEqual({ 'api:metrics': { since: named![1], failures: failedCalls, last: 500 } });
    expect(healthz.reasons!['api:metrics']).toContain(`(${failedCalls} calls since ${named![1]}`);
    const lines = await statusLines();
    expect(failingLines(lines)).toEqual([
      `metrics API failing since ${iso(started)} (${failedCalls} calls, last: 500)`,
    ]);
    expect(lines.indexOf(failingLines(lines)[0]!)).toBe(2); // under the daemon's line
    expect((await jsonStatus()).failing).toEqual(report.failing);

    // The API serves again: the waiting retry is served and ends the run for /healthz and status alike. The database
    // holds the writes that follow from now on (the next test's).
    holding = true;
    sim.faults.set('metrics', undefined);
    clock.advance(retryWaits.at(-1)!);
    await vi.waitFor(() => expect(servedCalls).toBeGreaterThan(0), WAIT);
    expect(health().reasons).toBeUndefined();
    expect((await statusAfter(Date.now())).failing).toEqual({});
    expect(failingLines(await statusLines())).toEqual([]);
  }, 120_000);

  it('a database failing writes: the start, count and reason of /healthz; nothing once it answers', async () => {
    // The first write the collected spans send (or the self-monitoring points, once a minute) fails now.
    await vi.waitFor(() => expect(held.length).toBeGreaterThan(0), WAIT);
    const failedAt = clock.now();
    answer(held.shift()!, 500);
    await vi.waitFor(
      async () => expect(await rt.telemetry.prometheus()).toMatch(/^cdn_collector_write_failures_total 1$/m),
      WAIT,
    );
    // Failing, not yet for http.sinkFailingAfter: neither names it.
    expect(health().reasons).toBeUndefined();
    expect((await statusAfter(Date.now())).failing).toEqual({});

    // A minute on, with every write held (the retry's too), the run is the one failed write: a /healthz condition.
    clock.advance(MIN);
    const healthz = health();
    expect(healthz.reasons).toEqual({ sink: `every write failed for 60 s (1 failed write since ${iso(failedAt)})` });
    const report = await statusAfter(Date.now());
    expect(report.failing).toEqual({ sink: { since: iso(failedAt), failures: 1, last: 'HTTP 500' } });
    expect(failingLines(await statusLines())).toEqual([
      `sink failing since ${iso(failedAt)} (1 failed write, last: HTTP 500)`,
    ]);
    expect((await jsonStatus()).failing).toEqual(report.failing);

    // The database is back: the writes held are confirmed, which ends the run for both.
    holding = false;
    for (const res of held.splice(0)) answer(res, 204);
    await vi.waitFor(() => expect(health().reasons).toBeUndefined(), WAIT);
    expect((await statusAfter(Date.now())).failing).toEqual({});
    expect(failingLines(await statusLines())).toEqual([]);
  }, 120_000);
});
