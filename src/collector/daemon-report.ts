import { hostname } from 'node:os';
import { API_NAMES, type ApiName } from '../spec/apis.js';
import { writeDaemonStatus, type DaemonStatus } from '../state/daemon-status.js';
import type { Runtime } from './runtime.js';

/**
 * Backlogs are recounted at most every BACKLOG_EVERY_MS: a job far behind has thousands of pending spans, and
 * hundreds of jobs recounted every second would cost more than the collection itself.
 */
class BacklogCache {
  private counted: { at: number; backlog: Map<string, number> } | undefined;

  get(rt: Runtime): Map<string, number> {
    if (this.counted && Date.now() - this.counted.at < BACKLOG_EVERY_MS) return this.counted.backlog;
    const backlog = new Map(rt.collector.jobs.map((job) => [job.key, job.checkpointed ? rt.collector.pending(job).length : 0]));
    this.counted = { at: Date.now(), backlog };
    return backlog;
  }
}

const BACKLOG_EVERY_MS = 30_000;

/** Writes daemon-status.json (state/daemon-status.ts) for `cdn-collector status`: the daemon calls it every second. */
export class DaemonReporter {
  private readonly backlogs = new BacklogCache();

  constructor(private readonly rt: Runtime) {}

  write(): Promise<void> {
    return writeDaemonStatus(this.rt.config.state.dir, daemonStatus(this.rt, this.backlogs.get(this.rt)));
  }

  /** The last report, once the daemon stopped: `status` says so at once instead of after the report grew stale. */
  stopped(): Promise<void> {
    const status = daemonStatus(this.rt, this.backlogs.get(this.rt));
    return writeDaemonStatus(this.rt.config.state.dir, { ...status, stoppedAt: status.updatedAt });
  }
}

function daemonStatus(rt: Runtime, backlog: Map<string, number>): DaemonStatus {
  const errors = rt.telemetry.lastErrors();
  const jobs: DaemonStatus['jobs'] = {};
  for (const job of rt.collector.jobs) {
    jobs[job.key] = {
      lagMs: rt.telemetry.lagMs(job.key) ?? rt.collector.lagMs(job), // the lag /healthz and /metrics show
      backlog: backlog.get(job.key) ?? 0,
      ...(errors[job.key] ? { lastError: errors[job.key] } : {}),
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
  return { pid: process.pid, host: hostname(), updatedAt: Date.now(), jobs, apis };
}
