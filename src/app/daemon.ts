import { scheduleUtc, type CronTask } from '../cron.js';
import { API_NAMES, type ApiName } from '../spec/apis.js';
import type { Logger } from '../log.js';
import type { Runtime } from './runtime.js';
import { serveBackfillRequests } from '../backfill/server.js';
import { reportDaemonStatus } from './daemon-report.js';
import { passCalls, reportQuotaWaits } from './quota-waits.js';
import { stopCollecting } from './stop.js';
import { scheduleVerify } from '../verify/job.js';
import { serveVerifyRequests } from '../verify/server.js';
import { counted } from '../words.js';
import type { PassResult } from '../collector/collector.js';

export interface Daemon {
  /** Resolves after the first pass of every job (startup gap fill) has ended. */
  firstPass: Promise<void>;
  /** Stops scheduling, lets in-flight spans finish and be confirmed, flushes, saves checkpoints. */
  stop(): Promise<void>;
}

/**
 * The long-running collector: one cron schedule per API (from the config, read in UTC: cron.ts) triggers a pass of
 * that API's jobs; a pass collects live windows and any gap since the checkpoint. Self-monitoring points go out once
 * a minute.
 */
export function startDaemon(rt: Runtime, log: Logger): Daemon {
  const { collector, config } = rt;
  const tasks: CronTask[] = [];
  // A run that throws (a pass, the self-monitoring write) is logged; its schedule goes on.
  const onError = (err: unknown) => log.warn({ err: (err as Error)?.message ?? String(err) }, 'scheduled run failed');
  const jobsOf = (api: ApiName) => collector.jobs.filter((j) => j.api === api);
  const passOf = (api: ApiName) => async () => {
    const results = await collector.runPass(jobsOf(api), 'live'); // skips jobs whose pass still runs
    // One line per API and pass (a job per line would be hundreds a minute); per-job detail at debug.
    for (const { key: job, spans, points, setAside, error } of results)
      log.debug({ event: 'job_pass', job, spans, points, setAside, error }, 'job pass');
    const spans = results.reduce((n, r) => n + r.spans, 0);
    const failed = results.filter((r) => r.error).map((r) => r.key);
    const setAside = results.filter((r) => r.setAside > 0).map((r) => r.key);
    if (spans > 0 || failed.length > 0 || setAside.length > 0) {
      const points = results.reduce((n, r) => n + r.points, 0);
      const problems = { ...(failed.length > 0 ? { failed } : {}), ...(setAside.length > 0 ? { setAside } : {}) };
      log.info({ event: 'pass', api, jobs: results.length, spans, points, ...problems }, 'pass');
    }
    return results;
  };
  for (const api of API_NAMES) {
    if (!config.jobs[api].enabled) continue;
    // The config schema has validated the expression (config/fields.ts, cronSchedule). Passes of an API overlap: each
    // starts the jobs that are idle, so a job whose pass is slow (an account failing to the limiter's deadline) holds
    // back only itself, not the next windows of the others.
    tasks.push(scheduleUtc(config.jobs[api].schedule, passOf(api), { noOverlap: false, onError }));
  }
  tasks.push(scheduleUtc('*/1 * * * *', () => writeTelemetry(rt, log), { noOverlap: true, onError }));
  const reports = reportDaemonStatus(rt, log); // daemon-status.json for `status`, every second
  const backfills = serveBackfillRequests(rt, log); // `backfill` beside the daemon hands its range over (state.dir)
  tasks.push(...[scheduleVerify(rt, log)].filter((t) => t !== undefined)); // reconciliation (config verify)
  const verifies = serveVerifyRequests(rt, log); // `verify` beside the daemon hands its check over (state.dir)

  // accounts: auto: the accounts are read before the first pass and again every jobs.statistic.discovery; the passes
  // pick up the jobs of new accounts (they filter collector.jobs each time).
  const discover = async () => {
    await rt.discovery?.refresh().catch((err: unknown) => {
      log.warn(
        { err: (err as Error).message },
        'account discovery failed; the accounts found so far are collected, retried at the next discovery',
      );
    });
  };
  const discoveryTimer = rt.discovery ? setInterval(() => void discover(), config.jobs.statistic.discovery) : undefined;
  discoveryTimer?.unref();

  const firstPass = discover()
    // A job a scheduled pass started already is waited for too.
    .then(() => {
      // The start-up pass fills the gaps due when it starts: a window falling due while it runs is the next pass's.
      const startedAt = rt.clock.now();
      const apis = API_NAMES.filter((a) => config.jobs[a].enabled);
      // The start-up pass may wait minutes for quota an earlier process spent: say so in the log while it does.
      const progress = reportQuotaWaits(rt, passCalls(collector), (line, fields) => log.info(fields, line));
      const passes = apis.map(async (a) => {
        const results = await passOf(a)();
        await collector.settled(jobsOf(a));
        return results;
      });
      return Promise.all(passes)
        .finally(() => progress.stop())
        .then((results) => logStartupPass(rt, log, results.flat(), startedAt));
    });

  return {
    firstPass,
    async stop() {
      clearInterval(discoveryTimer);
      await reports.stop();
      await backfills.stop();
      await verifies.stop();
      for (const t of tasks) await t.stop();
      await stopCollecting(rt);
      await writeTelemetry(rt, log);
      await reports.stopped();
    },
  };
}

/**
 * The start-up pass's one line, saying what it did: the gaps are filled only when no job failed and no window is
 * left; otherwise how many windows it collected and how many are still missing (a stop, a failing API or sink).
 */
function logStartupPass(rt: Runtime, log: Logger, results: readonly PassResult[], startedAt: number): void {
  const collected = results.reduce((n, r) => n + r.spans, 0);
  const points = results.reduce((n, r) => n + r.points, 0);
  const setAside = results.reduce((n, r) => n + r.setAside, 0);
  const failed = results.filter((r) => r.error).map((r) => r.key);
  // Counted afresh as of the pass's start (the job state keeps the count): status and /metrics show this line's count.
  const left = rt.collector.jobs.reduce((n, j) => n + rt.collector.state.backlog(j, startedAt, true), 0);
  const fields = { collected, points, setAside, left };
  const done = `${counted(collected, 'window')} collected`;
  const aside = setAside > 0 ? `, ${setAside} set aside` : '';
  if (rt.collector.stopping) {
    log.info(
      { event: 'startup_pass_stopped', ...fields, stopped: true },
      `startup pass stopped: ${done}${aside}, ${counted(left, 'window')} left for the next start`,
    );
  } else if (failed.length > 0 || left > 0) {
    const jobs = failed.length > 0 ? ` (${counted(failed.length, 'job')} failed: ${listed(failed)})` : '';
    log.warn(
      { event: 'startup_pass_gaps', ...fields, failed },
      `startup pass ended with gaps: ${done}${aside}, ${counted(left, 'window')} still missing${jobs}; ` +
        'the next passes retry them',
    );
  } else {
    log.info(
      { event: 'startup_pass_done', ...fields },
      `startup pass done: gaps since the checkpoints are filled (${done}${aside})`,
    );
  }
}

/** The first few keys, and how many more: a line stays readable with thousands of jobs. */
function listed(keys: readonly string[], max = 5): string {
  const more = keys.length > max ? ` and ${keys.length - max} more` : '';
  return `${keys.slice(0, max).join(', ')}${more}`;
}

async function writeTelemetry(rt: Runtime, log: Logger): Promise<void> {
  for (const job of rt.collector.jobs) {
    if (job.checkpointed) {
      // Gaps beyond the horizon are abandoned: drop their spans (and set-aside spans) so state stays bounded.
      const horizon = rt.clock.now() - rt.config.state.horizon;
      await rt.store.compact(job.key, horizon);
      await rt.collector.state.compactSetAside(job, horizon);
    }
  }
  try {
    await rt.sink.write(rt.telemetry.toPoints(rt.clock.now()));
  } catch (err) {
    // The runtime's sink logs runs of failed writes (sink-watch.ts); this one is just the next of them.
    log.debug({ err: (err as Error).message }, 'self-monitoring points not written');
  }
}
