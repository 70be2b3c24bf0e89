/**
 * The job list of `cdn-collector status`: the jobs the daemon runs. While it runs, its report (daemon-status.json),
 * which lists the jobs /healthz lists under the same keys (both read the daemon's telemetry); otherwise derived as the
 * daemon derives them (sources/registry.ts daemonJobs), with `accounts: auto` from the accounts its last report named
 * (or, when no daemon ran, those the state directory keeps checkpoints of).
 * Checkpoints of the state directory that no such job keeps are listed after them, as not configured.
 */
import type { CollectorConfig } from '../../config/schema.js';
import { accountJobs, daemonJobs } from '../../sources/registry.js';
import type { DaemonStatus } from '../../state/daemon-status.js';
import type { StateSnapshot } from '../../state/snapshot.js';

export interface JobStatus {
  key: string;
  /** False for a key the state directory holds but no job the daemon runs keeps. */
  configured: boolean;
  /** False for a job that keeps no checkpoint (DVR snapshots, provisional reads): it reads the current window. */
  checkpointed: boolean;
  /** The oldest watermark of the job's checkpoints (null: one of them has none yet). */
  watermark: string | null;
  lastConfirmedAt: string | null;
  /**
   * The watermark of each account's checkpoint, for a job reading several accounts in one call (`statistic/*\/total`
   * keeps `statistic/<account>/total`); absent for the others.
   */
  checkpoints?: Record<string, string | null>;
  /** Seconds behind now (the daemon's, as /healthz; else now − watermark; null: no daemon, none confirmed). */
  lagSeconds: number | null;
  /** Windows still to collect (the daemon's count; null without a running daemon). */
  backlog: number | null;
  setAside: Array<{ from: string; to: string; reason: string; attempts: number; firstAt: string; nextRetryAt: string }>;
  lastError: { error: string; at: string } | null;
}

interface ListedJob {
  key: string;
  checkpointed: boolean;
  /** The checkpoints that make its watermark: its own key, or each account's of a job reading several at once. */
  keys: readonly string[];
}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** The jobs the running daemon reported, else those a daemon of `config` runs (see the file's comment). */
function listedJobs(
  config: CollectorConfig,
  snapshot: StateSnapshot,
  running: DaemonStatus | undefined,
  last: DaemonStatus | undefined,
) {
  if (running) {
    return Object.entries(running.jobs).map(
      ([key, j]): ListedJob => ({ key, checkpointed: j.checkpointed ?? true, keys: j.keys ?? [key] }),
    );
  }
  return daemonJobs(config, last?.accounts ?? accountsInState(config, snapshot)).map(
    (job): ListedJob => ({ key: job.key, checkpointed: job.checkpointed, keys: job.sharedKeys?.() ?? [job.key] }),
  );
}

/**
 * With `accounts: auto` and no daemon report naming them (only `run --once` or `backfill` ran): the accounts whose
 * jobs keep checkpoints in the state directory, the accounts a daemon would find again.
 */
function accountsInState(config: CollectorConfig, snapshot: StateSnapshot): string[] {
  if (config.accounts !== 'auto') return [];
  const keys = new Set(snapshot.jobs.keys());
  const candidates = new Set(
    [...keys].map((key) => key.split('/')[1]).filter((a): a is string => a !== undefined && a !== '*'),
  );
  return [...candidates].filter((account) =>
    accountJobs(config, [account]).some((job) => [job.key, ...(job.sharedKeys?.() ?? [])].some((k) => keys.has(k))),
  );
}

export function statusJobs(
  config: CollectorConfig,
  snapshot: StateSnapshot,
  report: { running: DaemonStatus | undefined; last: DaemonStatus | undefined },
  now: number,
): JobStatus[] {
  // In the order /healthz lists them (code units: `metrics/…` before `metrics_resource/…`).
  const listed = listedJobs(config, snapshot, report.running, report.last).sort((a, b) => (a.key < b.key ? -1 : 1));
  const owned = new Set(listed.flatMap((j) => [j.key, ...j.keys]));
  const stale = [...snapshot.jobs.keys()]
    .filter((key) => !owned.has(key))
    .sort()
    .map((key): ListedJob => ({ key, checkpointed: true, keys: [key] }));
  return [
    ...listed.map((j) => ({ job: j, configured: true })),
    ...stale.map((j) => ({ job: j, configured: false })),
  ].map(({ job, configured }): JobStatus => {
    const state = snapshot.jobs.get(job.key);
    const watermarks = job.keys.map((key) => snapshot.jobs.get(key)?.watermark);
    const watermark =
      !job.checkpointed || watermarks.length === 0 || watermarks.includes(undefined)
        ? undefined
        : Math.min(...(watermarks as number[]));
    const confirmed = job.keys.map((key) => snapshot.jobs.get(key)?.lastConfirmedAt).filter((t) => t !== undefined);
    const live = report.running?.jobs[job.key];
    const lagMs = live?.lagMs ?? (watermark === undefined ? undefined : Math.max(0, now - watermark));
    const shared = job.keys.length !== 1 || job.keys[0] !== job.key;
    return {
      key: job.key,
      configured,
      checkpointed: job.checkpointed,
      watermark: iso(watermark),
      lastConfirmedAt: iso(confirmed.length === 0 ? undefined : Math.max(...confirmed)),
      ...(shared
        ? { checkpoints: Object.fromEntries(job.keys.map((key) => [key, iso(snapshot.jobs.get(key)?.watermark)])) }
        : {}),
      lagSeconds: lagMs === undefined ? null : Math.round(lagMs / 1000),
      backlog: live?.backlog ?? null,
      setAside: (state?.setAside ?? []).map((e) => ({
        from: iso(e.from)!,
        to: iso(e.to)!,
        reason: e.reason,
        attempts: e.attempts,
        firstAt: iso(e.firstAt)!,
        nextRetryAt: iso(e.nextRetryAt)!,
      })),
      lastError: live?.lastError ? { error: live.lastError.error, at: iso(live.lastError.at)! } : null,
    };
  });
}
