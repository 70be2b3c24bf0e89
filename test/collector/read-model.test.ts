/**
 * The job state is the one record of job facts: status's report, /healthz and /metrics read it at the instant they
 * are asked, so they agree with it and with each other; a pass plans its own spans and nothing more (the backlog is
 * counted when read, at most once a minute); telemetry keeps no copy of the facts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { BACKLOG_COUNT_EVERY_MS } from '../../src/collector/job-state.js';
import type { Runtime } from '../../src/app/runtime.js';
import { ApiError } from '../../src/http/errors.js';
import type { Sink } from '../../src/sink/types.js';
import type { CollectJob } from '../../src/sources/common/types.js';
import { CheckpointStore } from '../../src/state/checkpoints.js';
import { SetAsideStore } from '../../src/state/set-aside.js';
import { daemonStatus } from '../../src/app/daemon-report.js';
import { evaluateHealth } from '../../src/telemetry/health.js';
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { fakeJob, MIN, offlineCollector, T0 } from '../helpers/fake-job.js';

const dirs: string[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const request = { api: 'metrics' as const, method: 'GET', url: 'http://api.test/app/metrics/v1/' };
const okSink: Sink = {
  name: 'ok',
  write: async (p) => ({ written: p.length, rejected: 0 }),
  flush: async () => {},
  close: async () => {},
};

/**
 * Three fake jobs of one-minute windows, 10 windows after T0: `fake/shared` also confirms the checkpoint of
 * `fake/quiet` (as statistics totals shared by several keys do), whose own reads always fail (HTTP 503) and whose
 * checkpoint an earlier run left two windows after T0;
 * `fake/poisoned` has a span that fails for good (set aside).
 */
async function threeJobs(telemetry?: (clock: ManualClock) => Telemetry) {
  const dir = mkdtempSync(join(tmpdir(), 'read-model-'));
  dirs.push(dir);
  const clock = new ManualClock(T0 + 10 * MIN);
  const store = await CheckpointStore.open(dir);
  closers.push(() => store.close());
  await store.confirm('fake/quiet', { from: T0, to: T0 + 2 * MIN }); // collected by an earlier run
  const { store: aside } = await SetAsideStore.open(dir, { clock });
  const quiet: CollectJob = {
    ...fakeJob(() => {
      throw new ApiError({ status: 503, body: {}, request });
    }),
    key: 'fake/quiet',
  };
  const shared: CollectJob = { ...fakeJob(() => 1), key: 'fake/shared', sharedKeys: () => ['fake/quiet'] };
  const poisoned: CollectJob = {
    ...fakeJob((i) => {
      if (i === 7) throw new ApiError({ status: 400, body: {}, request });
      return 1;
    }),
    key: 'fake/poisoned',
  };
  const t = telemetry?.(clock);
  const collector = offlineCollector({
    jobs: [quiet, shared, poisoned],
    sink: okSink,
    store,
    aside,
    clock,
    horizonMs: 24 * 60 * MIN,
    initialLookbackMs: 10 * MIN,
    ...(t ? { telemetry: t } : {}),
  });
  return { collector, clock, store, quiet, shared, poisoned, telemetry: t };
}

/** What daemonStatus reads of a runtime, for a collector and telemetry of no API (every API disabled). */
function runtimeOf(collector: Runtime['collector'], telemetry: Telemetry, clock: ManualClock): Runtime {
  const off = { enabled: false };
  return {
    collector,
    telemetry,
    clock,
    config: { jobs: { metrics: off, statistic: off, streamstat: off, dvr: off } },
    accounts: { refusedAccounts: () => ({}) },
    discovery: undefined,
  } as unknown as Runtime;
}

/** The value of one series of /metrics, by metric name and collection job. */
function series(text: string, name: string, job: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{collector_job="${job}"} `));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe('status, /healthz and /metrics read the job state at one instant', () => {
  it('agree with each other and with the record on lag, backlog, set-aside spans and failures', async () => {
    const t = await threeJobs((clock) => new Telemetry({ clock }));
    const telemetry = t.telemetry!;
    const rt = runtimeOf(t.collector, telemetry, t.clock);
    // The quiet job's pass fails first; then the shared job confirms the quiet job's checkpoint too: the quiet job's
    // lag changed after its own pass ended, with no pass of its own to say so.
    for (const job of [t.quiet, t.shared, t.poisoned]) await t.collector.runOnce(job, 'live');
    expect(t.store.watermark('fake/quiet')).toBe(T0 + 10 * MIN);
    t.clock.advance(90_000);

    const now = t.clock.now();
    const report = daemonStatus(rt, now, now);
    const health = evaluateHealth(telemetry, { maxLagMs: 5 * MIN }, now);
    const metrics = await telemetry.prometheus();
    const record = t.collector.state.snapshot(now);
    expect(record.jobs.map((j) => j.key)).toEqual(['fake/poisoned', 'fake/quiet', 'fake/shared']);
    for (const job of [t.quiet, t.shared, t.poisoned]) {
      const facts = record.jobs.find((j) => j.key === job.key)!;
      expect(facts.lagMs, job.key).toBe(t.collector.state.lagMs(job));
      expect(report.jobs[job.key]?.lagMs, job.key).toBe(facts.lagMs);
      expect(health.jobs[job.key]?.lagSeconds, job.key).toBe(facts.lagMs / 1000);
      expect(series(metrics, 'cdn_collector_job_lag_seconds', job.key), job.key).toBe(facts.lagMs / 1000);
      expect(report.jobs[job.key]?.backlog, job.key).toBe(facts.backlog);
      expect(series(metrics, 'cdn_collector_job_backlog_windows', job.key), job.key).toBe(facts.backlog);
      expect(report.jobs[job.key]?.lastError, job.key).toEqual(facts.lastError);
      const failures = facts.failures > 0 ? facts.failures : undefined;
      expect(series(metrics, 'cdn_collector_job_failures_total', job.key), job.key).toBe(failures);
    }
    // The quiet job failed, yet lags no more than the windows since its shared checkpoint: 90 s, everywhere.
    expect(report.jobs['fake/quiet']).toMatchObject({ lagMs: 90_000, lastError: { error: expect.any(String) } });
    expect(health.jobs['fake/quiet']?.ok).toBe(true);
    expect(health.setAside).toEqual({ 'fake/poisoned': 1 });
    expect(series(metrics, 'cdn_collector_spans_set_aside', 'fake/poisoned')).toBe(1);
    expect(series(metrics, 'cdn_collector_spans_set_aside', 'fake/quiet')).toBeUndefined();
  });
});

describe('one read of the job state per scrape and per batch of points', () => {
  it('the job metrics of a /metrics scrape, or of a batch of points, read one snapshot at one instant', async () => {
    const t = await threeJobs((clock) => new Telemetry({ clock }));
    await t.collector.tick();
    const read = vi.spyOn(t.collector.state, 'snapshot');
    const scraped = await t.telemetry!.prometheus();
    expect(read).toHaveBeenCalledTimes(1);
    expect(read).toHaveBeenLastCalledWith(t.clock.now());
    const points = t.telemetry!.toPoints();
    expect(read).toHaveBeenCalledTimes(2);
    const lag = points.find((p) => p.tags.kind === 'job_lag' && p.tags.job === 'fake/quiet')?.fields.lag_seconds;
    expect(series(scraped, 'cdn_collector_job_lag_seconds', 'fake/quiet')).toBe(lag);
    // Outside a scrape each read is its own: a fact written in between is seen by the next read.
    t.clock.advance(MIN);
    await t.collector.tick();
    expect(t.telemetry!.jobsAt().find((j) => j.key === 'fake/quiet')?.failures).toBe(2);
  });
});

describe('a pass and the backlog', () => {
  it('a pass plans its own spans once; the backlog is counted when read, at most once a minute', async () => {
    const t = await threeJobs();
    const planned = vi.spyOn(t.collector, 'pending');
    for (let pass = 0; pass < 3; pass++) {
      await t.collector.tick();
      t.clock.advance(MIN);
    }
    // One plan per job and pass (what the pass collects), none to count what is left.
    expect(planned).toHaveBeenCalledTimes(3 * 3);
    planned.mockClear();
    const first = t.collector.state.snapshot();
    expect(planned).toHaveBeenCalledTimes(3); // each job counted once, on this first read
    t.clock.advance(BACKLOG_COUNT_EVERY_MS - 1);
    t.collector.state.snapshot();
    expect(planned).toHaveBeenCalledTimes(3); // within the minute: the count is read, not redone
    t.clock.advance(1);
    const later = t.collector.state.snapshot();
    expect(planned).toHaveBeenCalledTimes(6);
    // The window that came due after the last pass, then the one after it (the set-aside span is not due again yet).
    const backlog = (s: typeof first, key: string) => s.jobs.find((j) => j.key === key)?.backlog;
    expect(backlog(first, 'fake/quiet')).toBe(1);
    expect(backlog(later, 'fake/quiet')).toBe(2);
    expect(backlog(later, 'fake/shared')).toBe(2);
    expect(backlog(later, 'fake/poisoned')).toBe(2);
  });
});

describe('telemetry keeps no copy of job facts', () => {
  it('a telemetry wired after the passes shows all they left, and follows the record without being told', async () => {
    const t = await threeJobs();
    await t.collector.tick();
    t.clock.advance(MIN); // a new window: the quiet job's next pass has a span to fail on
    await t.collector.tick();
    const late = new Telemetry({ clock: t.clock });
    expect(late.jobsAt()).toEqual([]); // nothing of its own
    late.watchJobs(t.collector.state);
    const failures = (tel: Telemetry) => tel.jobsAt().find((j) => j.key === 'fake/quiet')?.failures;
    expect(failures(late)).toBe(2);
    expect(evaluateHealth(late, { maxLagMs: 5 * MIN }).setAside).toEqual({ 'fake/poisoned': 1 });
    // Two readers of one record: what one shows the other shows, at any instant, with nothing pushed to either.
    const other = new Telemetry({ clock: t.clock });
    other.watchJobs(t.collector.state);
    t.clock.advance(3 * MIN);
    await t.collector.tick();
    expect(failures(late)).toBe(3);
    expect(late.toPoints().filter((p) => p.tags.job !== undefined)).toEqual(
      other.toPoints().filter((p) => p.tags.job !== undefined),
    );
    expect(await late.prometheus()).toContain('cdn_collector_job_failures_total{collector_job="fake/quiet"} 3');
  });

  it('collector/ imports nothing of telemetry/: it reports through the ports the runtime wires', () => {
    const folder = join(import.meta.dirname, '../../src/collector');
    const importers = readdirSync(folder)
      .filter((file) => file.endsWith('.ts'))
      .filter((file) => /(from\s+|import\(\s*)'\.\.\/telemetry\//.test(readFileSync(join(folder, file), 'utf8')));
    expect(importers).toEqual([]);
  });

  it('has no way to be told a job fact: the collector is the only writer', () => {
    const methods = Object.getOwnPropertyNames(Telemetry.prototype);
    for (const pushed of ['jobLag', 'jobBacklog', 'jobFailed', 'jobRecovered', 'spansSetAside']) {
      expect(methods, pushed).not.toContain(pushed);
    }
  });
});
