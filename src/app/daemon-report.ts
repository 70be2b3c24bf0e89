import { hostname } from 'node:os';
import { systemClock, type Clock } from '../clock.js';
import { API_NAMES, type ApiName } from '../spec/apis.js';
import { writeDaemonStatus, type DaemonStatus } from '../state/daemon-status.js';
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
 * The jobs as telemetry holds them (JobState.report) — the very list, keys and lags /healthz shows — with the backlog
 * and last error of each, the failing APIs and sink as /healthz names them (one record, telemetry/failing.ts, read as
 * of the runtime's clock), and with `accounts: auto` the accounts discovered: what `status` shows.
 */
function daemonStatus(rt: Runtime, now: number): DaemonStatus {
  const errors = rt.telemetry.lastErrors();
  const byKey = new Map(rt.collector.jobs.map((job) => [job.key, job]));
  const jobs: DaemonStatus['jobs'] = {};
  for (const key of rt.telemetry.jobs()) {
    const job = byKey.get(key);
    const keys = job?.sharedKeys?.();
    jobs[key] = {
      lagMs: rt.telemetry.lagMs(key) ?? 0,
      backlog: rt.telemetry.backlog(key) ?? 0,
      ...(errors[key] ? { lastError: errors[key] } : {}),
      ...(job && !job.checkpointed ? { checkpointed: false } : {}),
      ...(keys ? { keys: [...keys] } : {}),
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
  for (const [condition, { since, failures, last }] of Object.entries(rt.telemetry.failingRuns())) {
    failing[condition] = { since, failures, ...(last === undefined ? {} : { last }) };
  }
  const refusedAccounts = rt.accounts.refusedAccounts();
  const refused = Object.keys(refusedAccounts).length > 0 ? { refusedAccounts } : {};
  const accounts = rt.discovery ? { accounts: rt.discovery.accounts } : {};
  return { pid: process.pid, host: hostname(), updatedAt: now, jobs, apis, failing, ...refused, ...accounts };
}
