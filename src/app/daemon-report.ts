import { hostname } from 'node:os';
import { systemClock, type Clock } from '../clock.js';
import { API_NAMES, type ApiName } from '../spec/apis.js';
import { writeDaemonStatus, type DaemonStatus } from '../state/daemon-status.js';
import type { Logger } from '../log.js';
import type { Runtime } from './runtime.js';

/** Writes daemon-status.json (state/daemon-status.ts) for `cdn-collector status`: the daemon calls it every second. */
export class DaemonReporter {
  constructor(
    private readonly rt: Runtime,
    /**
     * Stamps the report. Not the runtime's clock: other processes (`status`) judge the report's freshness on the
     * wall clock they share with the daemon, whatever clock the daemon's collection runs on.
     */
    private readonly wallClock: Clock = systemClock,
  ) {}

  write(): Promise<void> {
    return writeDaemonStatus(this.rt.config.state.dir, daemonStatus(this.rt, this.wallClock.now()));
  }

  /** The last report, once the daemon stopped: `status` says so at once instead of after the report grew stale. */
  stopped(): Promise<void> {
    const status = daemonStatus(this.rt, this.wallClock.now());
    return writeDaemonStatus(this.rt.config.state.dir, { ...status, stoppedAt: status.updatedAt });
  }
}

/**
 * The jobs as the job state holds them — the very list, keys and lags /healthz shows, read as of the same instant of
 * the runtime's clock — with the backlog and last error of each, the failing APIs and sink as /healthz names them (one
 * record, telemetry/failing.ts), and with `accounts: auto` the accounts discovered: what `status` shows.
 */
export function daemonStatus(rt: Runtime, now: number, at = rt.clock.now()): DaemonStatus {
  const jobs: DaemonStatus['jobs'] = {};
  for (const job of rt.collector.state.snapshot(at).jobs) {
    jobs[job.key] = {
      lagMs: job.lagMs,
      backlog: job.backlog,
      ...(job.lastError ? { lastError: job.lastError } : {}),
      ...(job.checkpointed ? {} : { checkpointed: false }),
      ...(job.keys ? { keys: job.keys } : {}),
    };
  }
  const apis: DaemonStatus['apis'] = {};
  for (const api of API_NAMES as readonly ApiName[]) {
    if (!rt.config.jobs[api].enabled) continue;
    const limiter = rt.limiters.get(api);
    const snap = limiter.snapshot();
    apis[api] = {
      used: snap.inFlight + snap.recentCompletions,
      queued: snap.queued,
      ...(limiter.quota ? { calls: limiter.quota.calls, periodMs: limiter.quota.periodMs } : {}),
    };
  }
  const failing: DaemonStatus['failing'] = {};
  for (const [condition, { since, failures, last }] of Object.entries(rt.telemetry.failingRuns(at))) {
    failing[condition] = { since, failures, ...(last === undefined ? {} : { last }) };
  }
  const refusedAccounts = rt.accounts.refusedAccounts();
  const refused = Object.keys(refusedAccounts).length > 0 ? { refusedAccounts } : {};
  const accounts = rt.discovery ? { accounts: rt.discovery.accounts } : {};
  return { pid: process.pid, host: hostname(), updatedAt: now, jobs, apis, failing, ...refused, ...accounts };
}

/** How often the daemon refreshes daemon-status.json. */
const REPORT_EVERY_MS = 1_000;

/**
 * The daemon's reports for `status`: one now and every `everyMs` until `stop()` (a write in progress is awaited, so
 * that none lands after the last one); `stopped()`, once the daemon has stopped, writes its last report.
 */
export function reportDaemonStatus(
  rt: Runtime,
  log: Logger,
  everyMs = REPORT_EVERY_MS,
): { stop(): Promise<void>; stopped(): Promise<void> } {
  const reporter = new DaemonReporter(rt);
  let stopping = false;
  let reporting: Promise<void> | undefined;
  const report = async () => {
    if (reporting || stopping) return;
    const notWritten = (err: unknown) => log.debug({ err: String(err) }, 'daemon-status.json not written');
    reporting = reporter.write().catch(notWritten);
    await reporting;
    reporting = undefined;
  };
  const timer = setInterval(() => void report(), everyMs);
  timer.unref();
  void report();
  return {
    async stop() {
      stopping = true;
      clearInterval(timer);
      await reporting;
    },
    stopped: () =>
      reporter.stopped().catch((err: unknown) => log.warn({ err: String(err) }, 'daemon-status.json not written')),
  };
}
