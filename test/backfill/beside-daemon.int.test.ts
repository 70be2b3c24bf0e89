/**
 * A backfill while the daemon runs on the same state directory and token: `backfill` hands its range to the daemon,
 * which runs it through its own limiter and checkpoints. The simulator's own log is the judge: no 429, the quota never
 * exceeded in any sliding window, and no window read twice (a recording proxy counts calls per account and window).
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxInSlidingWindow } from '../../src/sim/stats.js';
import type { Simulator } from '../../src/sim/server.js';
import { backfillArgs } from '../helpers/cli.js';
import { BESIDE_QUOTA, type DaemonBeside, runEntry, startDaemonBeside } from '../helpers/daemon-beside.js';
import { ROOT, spawnEntry, waitFor, type Entry } from '../ops/entry.js';

const MINUTE = 60_000;

/** Output of `command` run on a pseudo-terminal (util-linux `script`), from the repository root. */
function inPty(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'script',
      ['-qec', command, '/dev/null'],
      { cwd: ROOT, env: { ...process.env, COLUMNS: '200' } },
      (err, stdout) => (err ? reject(new Error(`${command}: ${err.message}\n${stdout}`)) : resolve(stdout)),
    );
  });
}

describe('backfill beside a running daemon', () => {
  let sim: Simulator;
  let daemon: Entry;
  let configFile: string;
  let dir: string;
  /** Metrics calls seen, by `account start end`. */
  let reads: Map<string, number>;
  let beside: DaemonBeside | undefined;

  beforeAll(async () => {
    beside = await startDaemonBeside('backfill-beside-');
    ({ sim, daemon, configFile, dir, reads } = beside);
  }, 120_000);

  afterAll(async () => {
    await beside?.close();
  });

  it('a dry run beside the daemon prints the plan instead of refusing the lock', async () => {
    const now = Date.now();
    const from = new Date(Math.floor(now / MINUTE) * MINUTE - 30 * MINUTE).toISOString();
    const to = new Date(Math.floor(now / MINUTE) * MINUTE - 20 * MINUTE + 5 * 1000).toISOString();
    const run = await runEntry(['backfill', '--config', configFile, '--from', from, '--to', to, '--dry-run', '--json']);
    expect(run.code, run.output).toBe(0);
    const plan = JSON.parse(run.stdout) as {
      jobs: Array<{ spans: number }>;
      calls: { metrics: number };
      notes: string[];
    };
    expect(plan.calls.metrics).toBe(20); // 2 accounts × 10 whole minutes
    expect(plan.notes.join('\n')).toMatch(/--to .* cuts the 1-minute window .* it is not collected/);
    // Nothing is handed over by a dry run, and the text says what it does instead.
    const text = await runEntry(['backfill', '--config', configFile, '--from', from, '--to', to, '--dry-run']);
    expect(text.code, text.output).toBe(0);
    expect(text.output).not.toMatch(/handing the backfill/);
    expect(text.output).toMatch(/a daemon holds \S+: asking it for the plan/);
  }, 60_000);

  it('status works while the daemon runs: watermark, lag, backlog, last error per job; quota use per API', async () => {
    const run = await runEntry(['status', '--config', configFile, '--json']);
    expect(run.code, run.output).toBe(0);
    const report = JSON.parse(run.stdout) as {
      daemon: { pid: number } | null;
      jobs: Array<{
        key: string;
        watermark: string | null;
        lagSeconds: number | null;
        backlog: number | null;
        lastError: unknown;
      }>;
      apis: Array<{ api: string; used: number; quota: number }>;
    };
    expect(report.daemon?.pid).toBe(daemon.child.pid);
    const keys = sim.accounts
      .slice(0, 2)
      .map((a) => `metrics/${a}`)
      .sort();
    expect(report.jobs.map((j) => j.key)).toEqual(keys);
    for (const job of report.jobs) {
      expect(job.watermark).not.toBeNull();
      expect(job.lagSeconds).toBeGreaterThanOrEqual(0);
      expect(job.lagSeconds).toBeLessThan(5 * 60);
      expect(job.backlog).toBeGreaterThanOrEqual(0);
      expect(job.lastError).toBeNull();
    }
    const metrics = report.apis.find((a) => a.api === 'metrics')!;
    expect(metrics.quota).toBe(BESIDE_QUOTA.calls);
    expect(metrics.used).toBeLessThanOrEqual(BESIDE_QUOTA.calls);

    // On a terminal (a pty through util-linux `script`): a table.
    const tty = (await inPty(`node bin/cdn-collector.js status --config ${configFile}`)).replace(/\x1b\[[0-9;]*m/g, '');
    expect(tty).toMatch(/│ job +│ watermark +│ lag +│ backlog +│ set aside +│ last error +│/);
    expect(tty).toMatch(new RegExp(`│ ${keys[0]!.replace('/', '\\/')} +│ \\d{4}-`));
  }, 60_000);

  it('runs the backfill in the daemon: within quota, no 429, no window read twice, checkpoints shared', async () => {
    const now = Date.now();
    const from = Math.floor(now / MINUTE) * MINUTE - 40 * MINUTE;
    const to = from + 30 * MINUTE;
    const run = await runEntry(backfillArgs(configFile, from, to, '--json'));
    expect(run.code, `${run.output}\n${daemon.output()}`).toBe(0);
    const result = JSON.parse(run.stdout) as {
      mode: string;
      state: string;
      spans: number;
      points: number;
      calls: { metrics: number };
    };
    expect(result).toMatchObject({ mode: 'daemon', state: 'done' });
    // The range reaches into the daemon's own windows (its origin is an hour back): the two share those (each read
    // once, below), so the backfill's own count is at most the plan's.
    expect(result.spans).toBeGreaterThan(0);
    expect(result.spans).toBeLessThanOrEqual(60);
    expect(result.calls.metrics).toBe(result.spans);
    expect(result.points).toBeGreaterThan(0);

    // The daemon went on collecting live windows meanwhile; let it run one more pass after the backfill.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const stats = sim.stats.apis.metrics;
    expect(stats.quotaRejections).toBe(0);
    expect(stats.byStatus['429']).toBeUndefined();
    expect(maxInSlidingWindow(stats.admittedAt, BESIDE_QUOTA.periodMs)).toBeLessThanOrEqual(BESIDE_QUOTA.calls);
    const twice = [...reads].filter(([, n]) => n > 1);
    expect(twice).toEqual([]);
    // Every backfilled window was read (once): 2 accounts × 30 minutes.
    const backfilled = [...reads.keys()].filter((k) => {
      const start = Date.parse(`${k.split(' ')[1]}Z`.replace(/ZZ$/, 'Z'));
      return start >= from && start < to;
    });
    expect(backfilled.length).toBe(60);

    // A second backfill of the same range finds nothing left: the daemon's checkpoints hold it.
    const again = await runEntry(backfillArgs(configFile, from, to, '--json'));
    expect(again.code, again.output).toBe(0);
    const second = JSON.parse(again.stdout) as { plannedSpans: number };
    expect(second.plannedSpans).toBe(0);
    expect([...reads].filter(([, n]) => n > 1)).toEqual([]);
  }, 120_000);

  it('the daemon keeps reporting for status while it runs a handed-over backfill', async () => {
    const to = Math.floor(Date.now() / MINUTE) * MINUTE - 120 * MINUTE;
    const from = to - 30 * MINUTE;
    const run = spawnEntry(backfillArgs(configFile, from, to));
    const state = join(dir, 'state');
    const requests = join(state, 'backfill');
    const running = async () => {
      const file = readdirSync(requests).find((n) => n.endsWith('.status.json'));
      return file && (JSON.parse(readFileSync(join(requests, file), 'utf8')) as { state: string }).state === 'running'
        ? true
        : undefined;
    };
    await waitFor('the daemon running the request', running, 30_000, run.output);
    const reportedAt = () =>
      (JSON.parse(readFileSync(join(state, 'daemon-status.json'), 'utf8')) as { updatedAt: number }).updatedAt;
    const first = reportedAt();
    // 60 spans at 5 calls / 2 s: the backfill runs for ~20 s; the report (rewritten every second) must move meanwhile,
    // or `status` calls the daemon gone once it is older than 30 s.
    await waitFor(
      'a newer daemon report',
      async () => (reportedAt() > first ? true : undefined),
      10_000,
      daemon.output,
    );
    expect(await running(), 'the backfill was still running when the report moved').toBe(true);
    run.child.kill('SIGINT');
    expect(await run.exited, run.output()).toBe(130);
  }, 90_000);

  it('Ctrl-C on a handed-over backfill: the daemon stops after the spans under way; says how to resume', async () => {
    const to = Math.floor(Date.now() / MINUTE) * MINUTE - 80 * MINUTE;
    const from = to - 30 * MINUTE;
    const run = spawnEntry(backfillArgs(configFile, from, to));
    const requests = join(dir, 'state', 'backfill');
    await waitFor(
      'the daemon running the request',
      async () => (readdirSync(requests).some((n) => n.endsWith('.status.json')) ? true : undefined),
      30_000,
      run.output,
    );
    run.child.kill('SIGINT');
    expect(await run.exited, run.output()).toBe(130);
    expect(run.output()).toMatch(/Resume with:\n {2}cdn-collector backfill --config \S+ --from \S+ --to \S+\n/);
    expect(run.output()).toMatch(/backfill cancelled: \d+\/60 spans/);
    // The command cleaned up after the daemon acknowledged; the daemon stopped the backfill and goes on live.
    expect(readdirSync(requests)).toEqual([]);
    expect([...reads].filter(([, n]) => n > 1)).toEqual([]);
    expect(daemon.child.exitCode).toBeNull();
  }, 90_000);
});
