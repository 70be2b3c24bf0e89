/**
 * What `cdn-collector status` reports, gathered without any lock so it works beside the running daemon: the state
 * files (watermarks, set-aside spans), the jobs the daemon runs (status-jobs.ts), the daemon's own report (lag,
 * backlog, last errors, quota use, what is failing; see state/daemon-status.ts) while it is fresh, and the backfills
 * handed to it. Without a daemon, lag is measured from the watermark and quota use read from the quota journal.
 */
import { hostname } from 'node:os';
import { systemClock } from '../../clock.js';
import type { CollectorConfig } from '../../config/schema.js';
import { API_NAMES, type ApiName } from '../../spec/apis.js';
import { readRequests, readStatus } from '../../backfill/requests.js';
import { readDaemonStatus, type DaemonStatus } from '../../state/daemon-status.js';
import { isProcessAlive } from '../../state/lock.js';
import { readJournalEntries } from '../../state/quota-journal-file.js';
import { readLoginRefusals } from '../../state/login-refusals.js';
import { AUTH_CONDITION } from '../../telemetry/auth-reports.js';
import { loginGate } from '../../auth/login-stop.js';
import { readStateSnapshot } from '../../state/snapshot.js';
import { readRefused, type RefusedSummary } from '../../sink/dead-letter.js';
import { gatherUnfinishedBackfills, type UnfinishedBackfill } from './status-backfills.js';
import { statusJobs, type JobStatus } from './status-jobs.js';

/** A daemon report older than this is from a daemon that is gone (it rewrites it every second). */
const FRESH_MS = 30_000;

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

export interface StatusReport {
  stateDir: string;
  /** The running daemon, when its report is fresh. */
  daemon: { pid: number; reportedAt: string } | null;
  /** When the daemon that wrote the last report stopped (its stop was clean), else null. */
  daemonStoppedAt: string | null;
  /**
   * The APIs (`api:<name>`) and the sink (`sink`) failing, by the running daemon's /healthz condition name: since
   * when, how many failed calls or writes, the last outcome (status or reason). Empty when none fails or no daemon
   * runs. And `auth`, as /healthz names it, while the service refuses the configured username's logins: read from
   * the refused-login count of the state dir, so it shows with or without a running daemon.
   */
  failing: Record<string, FailingStatus>;
  /** Accounts an API of the running daemon refuses (the token may not read them): none of their windows confirmed. */
  refusedAccounts: Record<string, { api: string; since: string; reason: string }>;
  jobs: JobStatus[];
  apis: Array<{
    api: ApiName;
    used: number;
    quota: number | null;
    periodSeconds: number | null;
    queued: number | null;
  }>;
  backfills: Array<{ id: string; state: string; spansDone: number; spans: number }>;
  /** Backfill ranges started and not completed (status-backfills.ts), whether or not a daemon runs. */
  unfinishedBackfills: UnfinishedBackfill[];
  /** Points the database refused for good, by cause, from the dead-letter file (`output.deadLetterPath`). */
  refused: RefusedSummary[];
  problems: string[];
}

export interface FailingStatus {
  since: string;
  failures: number;
  last: number | string | null;
  /** `auth` only: the username refused, and whether its logins are stopped (none sent until the operator acts). */
  username?: string;
  stopped?: boolean;
}

export type { JobStatus } from './status-jobs.js';

export async function gatherStatus(config: CollectorConfig, now = systemClock.now()): Promise<StatusReport> {
  const dir = config.state.dir;
  const snapshot = await readStateSnapshot(dir, now);
  const { status: reported, problem: reportProblem } = await readDaemonStatus(dir);
  const daemon = reported && isRunning(reported, now) ? reported : undefined;
  const jobs = statusJobs(config, snapshot, { running: daemon, last: reported }, now);
  const journal = daemon ? undefined : await journalUse(dir, config, now);
  const apis = API_NAMES.filter((api) => config.jobs[api].enabled).map((api) => {
    const use = daemon?.apis[api];
    const quota = config.quotas[api];
    return {
      api,
      used: use?.used ?? journal?.[api] ?? 0,
      quota: use?.calls ?? quota.calls,
      periodSeconds: (use?.periodMs ?? quota.period) / 1000,
      queued: use ? use.queued : null,
    };
  });
  const backfills = [];
  for (const request of await readRequests(dir).catch(() => [])) {
    const s = await readStatus(dir, request.id).catch(() => undefined);
    backfills.push({
      id: request.id,
      state: s?.state ?? 'waiting',
      spansDone: s?.spansDone ?? 0,
      spans: s?.plan.spans ?? 0,
    });
  }
  const unfinished = await gatherUnfinishedBackfills(dir);
  const problems = [...snapshot.problems, ...(reportProblem ? [reportProblem] : [])];
  if (unfinished.problem) problems.push(unfinished.problem);
  return {
    stateDir: dir,
    daemon: daemon ? { pid: daemon.pid, reportedAt: iso(daemon.updatedAt)! } : null,
    daemonStoppedAt: iso(reported?.stoppedAt),
    failing: {
      ...(await refusedLogins(dir, config.api.username, now)),
      ...Object.fromEntries(
        Object.entries(daemon?.failing ?? {}).map(([condition, run]) => [
          condition,
          { since: iso(run.since)!, failures: run.failures, last: run.last ?? null },
        ]),
      ),
    },
    refusedAccounts: Object.fromEntries(
      Object.entries(daemon?.refusedAccounts ?? {}).map(([account, r]) => [
        account,
        { api: r.api, since: iso(r.since)!, reason: r.reason },
      ]),
    ),
    jobs,
    apis,
    backfills,
    unfinishedBackfills: unfinished.backfills,
    refused: await readRefused(config.output.deadLetterPath),
    problems,
  };
}

/** The `auth` condition while the configured username has refused logins (none: a token, or no refusal). */
async function refusedLogins(
  dir: string,
  username: string | undefined,
  now: number,
): Promise<Record<string, FailingStatus>> {
  if (username === undefined) return {};
  const entry = (await readLoginRefusals(dir))[username];
  if (entry === undefined) return {};
  const stopped = !loginGate(entry, now, false).open;
  const run = { since: iso(entry.since)!, failures: entry.refused, last: 'credentials refused', username, stopped };
  return { [AUTH_CONDITION]: run };
}

/**
 * The daemon that wrote `report` still runs: it did not write its stopped report, its report is fresh, and its pid is
 * alive when it ran on this host (a kill -9 leaves a fresh report behind).
 */
function isRunning(report: DaemonStatus, now: number): boolean {
  if (report.stoppedAt !== undefined || now - report.updatedAt >= FRESH_MS) return false;
  return report.host !== hostname() || isProcessAlive(report.pid);
}

/** Calls completed within each API's quota period, from the quota journal (best effort: 0 when unreadable). */
async function journalUse(
  dir: string,
  config: CollectorConfig,
  now: number,
): Promise<Partial<Record<ApiName, number>>> {
  try {
    const entries = await readJournalEntries(dir);
    const out: Partial<Record<ApiName, number>> = {};
    for (const api of API_NAMES)
      out[api] = (entries[api]?.done ?? []).filter((at) => at > now - config.quotas[api].period).length;
    return out;
  } catch {
    return {};
  }
}
