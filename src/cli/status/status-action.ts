import Table from 'cli-table3';
import { systemClock } from '../../clock.js';
import { formatDuration } from '../../backfill/eta.js';
import { gatherStatus, type StatusReport } from './status-report.js';
import { loadConfigFile } from '../../config/loader.js';
import type { Shard } from '../../config/shard.js';
import { applyShard } from '../common/apply-shard.js';
import { AUTH_CONDITION } from '../../telemetry/auth-reports.js';
import { failingName, failureCount } from '../../telemetry/failing.js';
import { unfinishedBackfillLines } from './status-backfills.js';
import { counted } from '../../words.js';

// What `status` does, loaded only when it runs: its --help and argument errors load status.ts alone.

export interface StatusOptions {
  config?: string;
  json?: boolean;
  shard?: Shard;
}

export async function statusAction(o: StatusOptions): Promise<void> {
  // The jobs of the shard's daemon (`--shard`, env CDN_SHARD), when no daemon's report names them.
  const report = await gatherStatus(applyShard(loadConfigFile(o.config), o.shard), systemClock.now());
  if (o.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else if (process.stdout.isTTY) process.stdout.write(renderTable(report));
  else process.stdout.write(renderText(report));
  // A state file that cannot be read is worth a non-zero exit (monitoring scripts); set-aside spans are not.
  if (report.problems.length > 0) process.exitCode = 1;
}

const seconds = (s: number | null) => (s === null ? '—' : formatDuration(s * 1000));
/** Known only to a running daemon: `—` alone then, not `— windows`. */
const backlogText = (windows: number | null) => (windows === null ? '—' : counted(windows, 'window'));
function daemonLine(r: StatusReport): string {
  if (r.daemon) return `daemon: running (pid ${r.daemon.pid}, reported ${r.daemon.reportedAt})`;
  const stopped = r.daemonStoppedAt ? `stopped ${r.daemonStoppedAt}; ` : '';
  return `daemon: not running (${stopped}lag from the watermarks; no backlog)`;
}

/** Each API and the sink failing as /healthz names them, in its words: `sink failing since … (2 failed writes, …)`. */
function failingLines(r: StatusReport): string[] {
  return Object.entries(r.failing).map(([condition, run]) => {
    if (condition === AUTH_CONDITION) return authLine(run);
    const last = run.last === null ? '' : `, last: ${run.last}`;
    return `${failingName(condition)} failing since ${run.since} (${failureCount(condition, run.failures)}${last})`;
  });
}

/** The refused logins of the configured username, and how to resume when they stopped. */
function authLine(run: StatusReport['failing'][string]): string {
  const logins = `${run.failures} refused ${run.failures === 1 ? 'login' : 'logins'} of ${run.username} in a row`;
  const resume = run.stopped
    ? '; logins stopped: fix the password (or its file), then run once with --force-login'
    : '; fix the password (or its file)';
  return `auth failing since ${run.since} (${logins}${resume})`;
}

/** Each account an API refuses, as /healthz names it (`account:<name>`). */
function refusedAccountLines(r: StatusReport): string[] {
  return Object.entries(r.refusedAccounts).map(
    ([account, e]) => `account ${account} refused by the ${e.api} API since ${e.since} (${e.reason})`,
  );
}

/** One line per job (greppable), its set-aside spans indented under it, then APIs and backfills. */
function renderText(r: StatusReport): string {
  const lines = [`state: ${r.stateDir}`, daemonLine(r), ...failingLines(r), ...refusedAccountLines(r)];
  const width = Math.max(0, ...r.jobs.map((j) => j.key.length));
  for (const job of r.jobs) {
    const aside = job.setAside.length > 0 ? `  set aside: ${job.setAside.length}` : '';
    const unconfigured = job.configured ? '' : '  (not configured)';
    const watermark = job.checkpointed
      ? `watermark ${job.watermark ?? '—'}`
      : 'no checkpoint: reads the current window';
    lines.push(`${job.key.padEnd(width)}  ${watermark}${aside}${unconfigured}`);
    for (const [key, at] of Object.entries(job.checkpoints ?? {})) lines.push(`  ${key}  watermark ${at ?? '—'}`);
    for (const e of job.setAside)
      lines.push(`  ${e.from}/${e.to}  attempts ${e.attempts}, next retry ${e.nextRetryAt}: ${e.reason}`);
    lines.push(
      `  lag ${seconds(job.lagSeconds)}, backlog ${backlogText(job.backlog)}` +
        `${job.lastError ? `, last error ${job.lastError.at}: ${job.lastError.error}` : ''}`,
    );
  }
  for (const a of r.apis) lines.push(`api ${a.api}: ${quotaText(a)}`);
  for (const b of r.backfills) lines.push(`backfill ${b.id}: ${b.state}, ${b.spansDone}/${b.spans} spans`);
  lines.push(...unfinishedBackfillLines(r.unfinishedBackfills));
  lines.push(...refusedLines(r));
  for (const p of r.problems) lines.push(`problem: ${p}`);
  return `${lines.join('\n')}\n`;
}

function quotaText(a: StatusReport['apis'][number]): string {
  const quota = a.quota === null ? 'no quota' : `${a.used}/${a.quota} calls in the last ${seconds(a.periodSeconds)}`;
  return `${quota}${a.queued ? `, ${a.queued} queued` : ''}`;
}

function renderTable(r: StatusReport): string {
  const jobs = new Table({ head: ['job', 'watermark', 'lag', 'backlog', 'set aside', 'last error'] });
  for (const j of r.jobs) {
    jobs.push([
      j.configured ? j.key : `${j.key} (not configured)`,
      j.checkpointed ? (j.watermark ?? '—') : 'no checkpoint',
      seconds(j.lagSeconds),
      j.backlog ?? '—',
      j.setAside.length === 0 ? '' : j.setAside.map((e) => `${e.from}: ${clip(e.reason)}`).join('\n'),
      j.lastError ? `${j.lastError.at}: ${clip(j.lastError.error)}` : '',
    ]);
  }
  const apis = new Table({ head: ['api', 'quota use', 'queued'] });
  for (const a of r.apis)
    apis.push([
      a.api,
      a.quota === null ? 'no quota' : `${a.used}/${a.quota} per ${seconds(a.periodSeconds)}`,
      a.queued ?? '—',
    ]);
  const head = [`state: ${r.stateDir}`, daemonLine(r), ...failingLines(r), ...refusedAccountLines(r)];
  const parts = [...head, jobs.toString(), apis.toString()];
  for (const b of r.backfills) parts.push(`backfill ${b.id}: ${b.state}, ${b.spansDone}/${b.spans} spans`);
  parts.push(...unfinishedBackfillLines(r.unfinishedBackfills));
  parts.push(...refusedLines(r));
  for (const p of r.problems) parts.push(`problem: ${p}`);
  return `${parts.join('\n')}\n`;
}

/** Points the database refused for good (dead letters), one line per cause with its fix. */
function refusedLines(r: StatusReport): string[] {
  return r.refused.map(
    (e) =>
      `points refused (${e.cause}): ${e.points} from ${e.firstAt} to ${e.lastAt}, last: ${e.reason}; fix: ${e.fix}`,
  );
}

/** Table cells stay readable; `--json` and the plain lines carry the whole text. */
function clip(text: string, max = 60): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
