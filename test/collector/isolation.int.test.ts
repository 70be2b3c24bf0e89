/**
 * One failing account holds no other back, and shows as lagging: a daemon (in process, on a ManualClock, cron passes
 * every second) collects the metrics of two accounts while every metrics call of one of them answers 500. Its calls
 * retry in the limiter's backoff, which ends only when the test moves the clock: its pass runs until the test moves
 * the clock past the limiter's deadline (5 minutes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDaemon, type Daemon } from '../../src/app/daemon.js';
import type { Runtime } from '../../src/app/runtime.js';
import { gatherStatus } from '../../src/cli/status/status-report.js';
import { loadConfigFile } from '../../src/config/loader.js';
import type { CollectorConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { collectableEnd } from '../../src/plan/windows.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { evaluateHealth } from '../../src/telemetry/health.js';
import { createRuntime } from '../../src/app/runtime.js';
import { runCli } from '../helpers/cli.js';
import { lastErrors } from '../helpers/fake-job.js';
import { writeSimConfig } from '../helpers/collector.js';
import { ensureBuilt } from '../ops/entry.js';

const MIN = 60_000;
/** A bound on each wait (cron fires every second), never an assertion. */
const WAIT = { timeout: 30_000, interval: 50 };

describe('two accounts, one of whose metrics calls all answer 500', () => {
  // Half a minute into a minute: a never-collected job's lag is not a whole number of minutes.
  const clock = new ManualClock(Math.floor(Date.now() / MIN) * MIN - 60 * MIN + 30_000);
  const started = clock.now();
  const dir = mkdtempSync(join(tmpdir(), 'isolation-'));
  let sim: Simulator;
  let file: string;
  let config: CollectorConfig;
  let rt: Runtime;
  let daemon: Daemon;
  let healthy: string;
  let failing: string;

  beforeAll(async () => {
    ensureBuilt(); // `status` runs as its own process
    sim = await startSimulator({ clock, quotas: NO_QUOTAS, world: { accounts: 2 } });
    const [good, bad] = sim.accounts;
    [healthy, failing] = [`metrics/${good}`, `metrics/${bad}`];
    sim.faults.set('metrics', { rate: 1, kinds: ['500'], accounts: [bad!] });
    file = writeSimConfig(dir, sim, {
      accounts: [good, bad],
      jobs: {
        metrics: { window: '1m', delay: '1s', byResource: false, schedule: '* * * * * *' },
        statistic: { enabled: false },
        streamstat: { enabled: false },
        dvr: { enabled: false },
      },
      state: { dir: join(dir, 'state'), initialLookback: '3m' },
      http: { maxLag: '3m' },
      log: { level: 'error' },
    });
    config = loadConfigFile(file);
    rt = await createRuntime(config, clock, createLogger('error', { pretty: false }));
    daemon = startDaemon(rt, createLogger('error', { pretty: false }));
  });

  afterAll(async () => {
    await daemon?.stop();
    await rt?.close();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const jobOf = (key: string) => rt.collector.jobs.find((j) => j.key === key)!;
  const newestEnd = () => collectableEnd(jobOf(healthy).rule, clock.now());

  it("confirms the healthy account's windows while the other's first pass is still retrying", async () => {
    await vi.waitFor(() => expect(rt.store.watermark(healthy)).toBe(newestEnd()), WAIT);
    expect(sim.faults.injected.metrics['500']).toBeGreaterThan(0);
    expect(rt.store.watermark(failing)).toBeUndefined();
    // Each new minute is collected by the next scheduled pass, which does not wait for the failing job's pass.
    for (let minute = 1; minute <= 2; minute++) {
      clock.advance(MIN);
      await vi.waitFor(() => expect(rt.store.watermark(healthy)).toBe(newestEnd()), WAIT);
    }
    expect(rt.store.watermark(failing)).toBeUndefined();
  }, 120_000);

  it('goes on doing so once the failing job gave up and a scheduled pass retries it', async () => {
    clock.advance(5 * MIN); // past the limiter's deadline: the failing job's first pass ends
    await vi.waitFor(() => expect(lastErrors(rt.collector)[failing]).toBeDefined(), WAIT);
    const failed = sim.faults.injected.metrics['500']!;
    await vi.waitFor(() => expect(sim.faults.injected.metrics['500']).toBeGreaterThan(failed), WAIT); // a new pass
    clock.advance(MIN);
    await vi.waitFor(() => expect(rt.store.watermark(healthy)).toBe(newestEnd()), WAIT);
    expect(rt.store.watermark(failing)).toBeUndefined();
  }, 120_000);

  it('counts the lag of the job that never collected from the start: /healthz, /metrics and status agree', async () => {
    const thresholds = { maxLagMs: config.http.maxLag, jobMaxLagMs: config.http.jobMaxLag };
    const health = evaluateHealth(rt.telemetry, thresholds, clock.now());
    const lagMs = clock.now() - started + 30_000; // from the start of the first window due after the start
    expect(lagMs).toBe(8 * MIN + 30_000);
    expect(health.status).toBe('lagging');
    expect(health.jobs[failing]).toEqual({ lagSeconds: lagMs / 1000, maxLagSeconds: 4 * 60 + 1, ok: false });
    expect(health.jobs[healthy]?.ok).toBe(true);
    expect(Object.keys(health.reasons ?? {})).toEqual([failing]);
    const metrics = await rt.telemetry.prometheus();
    expect(metrics).toContain(`cdn_collector_job_lag_seconds{collector_job="${failing}"} ${lagMs / 1000}`);

    // `status` reads the daemon's report (rewritten every second): once it has this lag, it shows it.
    const status = await vi.waitFor(async () => {
      const report = await gatherStatus(config);
      const job = report.jobs.find((j) => j.key === failing)!;
      expect(job.lagSeconds).toBe(lagMs / 1000);
      return job;
    }, WAIT);
    expect(status.watermark).toBeNull();
    // Backlog too: one count (the job state's) behind status and /metrics, for both jobs, once the daemon's
    // report (rewritten every second) was written after the last pass.
    const report = await vi.waitFor(async () => {
      const read = await gatherStatus(config);
      const scraped = await rt.telemetry.prometheus();
      for (const key of [healthy, failing]) {
        const series = new RegExp(`cdn_collector_job_backlog_windows\\{collector_job="${key}"\\} (\\d+)`);
        const backlog = Number(series.exec(scraped)?.[1]);
        expect(read.jobs.find((j) => j.key === key)!.backlog, key).toBe(backlog);
      }
      return read;
    }, WAIT);
    expect(report.jobs.find((j) => j.key === failing)!.backlog).toBeGreaterThan(0);
    const { code, stdout } = await runCli(['status', '--config', file]).exited;
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith(failing));
    expect(lines[at]).toMatch(new RegExp(`^${failing}\\s+watermark —$`));
    expect(lines[at + 1]).toMatch(/^ {2}lag 8m 30s,/);
  }, 120_000);
});
