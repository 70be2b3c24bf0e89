import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock } from '../../clock.js';
import { runBackfill } from '../../backfill/backfill.js';
import { planBackfill, type BackfillPlan } from '../../plan/planner.js';
import { startDaemon } from '../../app/daemon.js';
import { createRuntime, type Runtime } from '../../app/runtime.js';
import { stopCollecting } from '../../app/stop.js';
import { sinkTarget } from '../common/startup.js';
import { sinkFailureCause } from '../common/sink-probe.js';
import { EXIT_WINDOWS_FAILED } from '../common/verdict.js';
import type { Span } from '../../spans.js';
import { parseConfig } from '../../config/loader.js';
import { checkConfig } from '../../config/rules.js';
import { createLogger } from '../../log.js';
import { configQuotasOf, scaledQuotas } from '../../sim/quota.js';
import { startSimulator, type Simulator } from '../../sim/server.js';
import { HOUR } from '../../time.js';
import { onStopSignal, stoppedExitCode, type StopSignal } from '../common/signals.js';

export interface DemoOptions {
  hours: number;
  duration?: number;
  dataDir: string;
  seed: number;
}

// What `demo` does, loaded only when it runs: its --help and argument errors load demo.ts alone.

/** The demo scales every quota period to this, so hours of history backfill in seconds (calls per period unchanged). */
const DEMO_PERIOD_MS = 2000;

export async function demoAction(o: DemoOptions): Promise<void> {
  const clock = systemClock;
  mkdirSync(o.dataDir, { recursive: true });
  const sim = await startSimulator({
    clock,
    seed: o.seed,
    quotas: scaledQuotas(DEMO_PERIOD_MS),
  });
  const config = parseConfig(
    {
      api: { baseUrl: sim.url, token: sim.token },
      accounts: sim.accounts,
      quotas: configQuotasOf(sim.quota),
      jobs: { dvr: { streams: sim.streams } },
      // INFLUX_* in the environment selects InfluxDB (see config/loader.ts); otherwise line protocol to a file.
      ...(process.env.INFLUX_URL ? {} : { sink: { type: 'file', path: join(o.dataDir, 'points.lp') } }),
      output: { deadLetterPath: join(o.dataDir, 'dead-letters.jsonl') },
      state: { dir: join(o.dataDir, 'state'), initialLookback: `${o.hours}h` },
    },
    sinkEnvOnly(process.env),
  );
  checkConfig(config);
  const log = createLogger(config.log);
  const rt = await createRuntime(config, clock, log);
  process.stdout.write(
    `Simulator at ${sim.url} (quota periods scaled to ${DEMO_PERIOD_MS / 1000} s); writing to ` +
      `${sinkTarget(config.sink)}\n`,
  );

  const now = rt.clock.now();
  const range = { from: now - o.hours * HOUR, to: now };
  const plan = planBackfill(rt.collector, range);
  // A stop during the backfill keeps what it confirmed and skips the live part; during the live part it is the end.
  let stoppedBy: StopSignal | undefined;
  let wake: () => void = () => void stopCollecting(rt);
  const dispose = onStopSignal({
    stop: (signal) => {
      stoppedBy = signal;
      wake();
    },
  });
  process.stdout.write(`Backfilling the last ${o.hours} h: ${plan.spans} spans${coveredNote(rt, plan, o.dataDir)}\n`);
  await runBackfill(rt.collector, plan, { shouldStop: () => stoppedBy !== undefined });
  const where = { dataDir: o.dataDir, sink: sinkTarget(config.sink) };
  // Windows the backfill could not write: the sink's own reason (a missing database…) ends the demo, as the live
  // part could write nothing either.
  const missing = missingWindows(rt, range);
  const cause = missing > 0 && stoppedBy === undefined ? await sinkFailureCause(config.sink) : undefined;
  printSummary(rt, sim, range, where, cause);

  if (cause !== undefined) {
    process.stdout.write('Not collecting live: the sink takes no write. Fix it and run the demo again\n');
    process.exitCode = EXIT_WINDOWS_FAILED;
  } else if (stoppedBy === undefined) {
    const daemon = startDaemon(rt, log);
    process.stdout.write(
      o.duration ? `Collecting live for ${o.duration / 1000} s…\n` : 'Collecting live; Ctrl-C to stop.\n',
    );
    await new Promise<void>((resolve) => {
      if (o.duration) setTimeout(resolve, o.duration).unref();
      wake = resolve;
    });
    await daemon.stop();
    if (printSummary(rt, sim, range, where) > 0) process.exitCode = EXIT_WINDOWS_FAILED;
  } else {
    process.stdout.write(`Stopped by ${stoppedBy} during the backfill: what it collected is kept; run it again\n`);
    process.exitCode = stoppedExitCode(stoppedBy);
  }
  await rt.close();
  await sim.close();
  dispose();
}

/**
 * The environment the demo's config may read: the sink's INFLUX_* only. CDN_BASE_URL, CDN_TOKEN, CDN_ACCOUNTS and the
 * other API variables (which the README's DVR section exports) would point the demo at a real service and spend its
 * quota while the screen says "Simulator".
 */
function sinkEnvOnly(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('INFLUX_')));
}

/**
 * Missing of what was collectable when the range was planned: a window that became collectable since (say a 5-minute
 * statistics bucket) is the live schedule's, and may still wait for its quota when the demo stops.
 */
function missingWindows(rt: Runtime, range: Span): number {
  return rt.collector.jobs
    .filter((j) => j.checkpointed)
    .reduce((n, job) => n + rt.collector.pending(job, range, range.to).length, 0);
}

/**
 * Why a backfill has fewer spans than a first demo: the checkpoints of an earlier demo in the same data directory
 * already cover them (and the summary then counts only what this one collected).
 */
function coveredNote(rt: Runtime, plan: BackfillPlan, dataDir: string): string {
  const covered = plan.jobs.some(({ job }) =>
    rt.store.confirmed(job.key).some((s) => s.from < plan.range.to && s.to > plan.range.from),
  );
  if (!covered) return '…';
  const state = join(dataDir, 'state');
  const startOver = `to start over, delete ${dataDir} or pass another --data-dir`;
  return plan.spans === 0
    ? `: the checkpoints in ${state} (an earlier demo) already cover it; ${startOver}`
    : ` (the checkpoints in ${state} cover the rest; ${startOver})…`;
}

/** The summary; returns the missing windows. `cause`: why windows are missing, when the sink says so. */
function printSummary(rt: Runtime, sim: Simulator, range: Span, where: DemoWhere, cause?: string): number {
  const points = rt.telemetry.pointsByMeasurement();
  const missing = missingWindows(rt, range);
  const lines = [
    'Summary',
    '  points per measurement:',
    ...Object.entries(points).map(([m, n]) => `    ${m.padEnd(22)} ${n}`),
    '  calls per API (simulator):',
    ...Object.entries(sim.stats.apis).map(
      ([api, s]) => `    ${api.padEnd(22)} ${s.requests} (429 from quota: ${s.quotaRejections})`,
    ),
    `  missing windows: ${missing}${cause === undefined ? '' : ` — ${cause}`}`,
    `  points refused by the database: ${rt.telemetry.refusedPoints()}` +
      `${rt.telemetry.refusedPoints() > 0 ? ` (dead letters: ${rt.config.output.deadLetterPath})` : ''}`,
    `  data: ${where.sink}`,
    `  state: ${join(where.dataDir, 'state')} (checkpoints: a demo with this --data-dir collects only what they lack)`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return missing;
}

interface DemoWhere {
  dataDir: string;
  /** The sink, as the first line names it. */
  sink: string;
}
