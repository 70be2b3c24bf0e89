import type { Logger } from '../log.js';
import { planBackfill, type BackfillPlan } from '../plan/planner.js';
import {
  isCancelled,
  readRequests,
  readStatus,
  removeRequest,
  writeStatus,
  type BackfillRequest,
  type BackfillStatus,
} from './requests.js';
import { executeBackfill } from './backfill.js';
import { OwnedRange, pendingIn, resumeCommand, type RangeEnd } from './owned-range.js';
import { DaemonReporter } from '../app/daemon-report.js';
import type { Runtime } from '../app/runtime.js';

/** How often the daemon looks for requests and cancellations, and refreshes daemon-status.json. */
export const POLL_MS = 1_000;
/** A finished request nobody collected (the command was killed) is removed after this. */
const KEEP_FINISHED_MS = 24 * 3_600_000;
/** The status file of a running backfill is rewritten at most this often. */
const STATUS_EVERY_MS = 500;

/** The summary of a plan as the status file and `--dry-run` show it. */
export function planSummary(plan: BackfillPlan): BackfillStatus['plan'] {
  const { calls, callsMost, pagingMayAdd, spans } = plan;
  const jobs = plan.jobs.map(({ job, spans }) => ({ key: job.key, api: job.api, spans: spans.length }));
  return { jobs, calls, callsMost, pagingMayAdd, spans };
}

/**
 * The daemon's side of backfills handed over by `cdn-collector backfill` (see backfill/requests.ts): runs each
 * request through the daemon's own collector at backfill priority, one at a time, and reports progress in its status
 * file. A request found running at start-up (the daemon was restarted) is resumed: its confirmed spans are skipped.
 * Each poll also refreshes daemon-status.json for `cdn-collector status` (daemon-report.ts); `stopped()`, called once
 * the daemon has stopped, writes its last report.
 */
export function serveBackfillRequests(
  rt: Runtime,
  log: Logger,
  pollMs = POLL_MS,
): { stop(): Promise<void>; stopped(): Promise<void> } {
  const dir = rt.config.state.dir;
  let stopping = false;
  let busy = false;
  const handled = new Set<string>();
  const reporter = new DaemonReporter(rt);
  let reporting: Promise<void> | undefined;
  // Apart from the requests: a handed-over backfill keeps a tick busy for minutes, and a report older than
  // status-report.ts's FRESH_MS reads as "daemon not running".
  const report = async () => {
    if (reporting || stopping) return;
    const notWritten = (err: unknown) => log.debug({ err: String(err) }, 'daemon-status.json not written');
    reporting = reporter.write().catch(notWritten);
    await reporting;
    reporting = undefined;
  };

  const tick = async () => {
    void report();
    if (busy || stopping) return;
    busy = true;
    try {
      for (const request of await readRequests(dir)) {
        if (stopping) break;
        if (handled.has(request.id)) continue;
        const previous = await readStatus(dir, request.id);
        if (previous && previous.state !== 'running') {
          // Normally the command removes its request once it read the end; one whose shell died is kept a day.
          if (rt.clock.now() - previous.updatedAt > KEEP_FINISHED_MS) await removeRequest(dir, request.id);
          else handled.add(request.id);
          continue;
        }
        handled.add(request.id);
        await handle(rt, log, request, () => stopping).catch((err: unknown) =>
          log.warn({ id: request.id, err: String(err) }, 'backfill request failed'),
        );
      }
    } catch (err) {
      log.warn({ err: String(err) }, 'backfill requests not read');
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), pollMs);
  timer.unref();
  void tick();
  return {
    async stop() {
      stopping = true;
      clearInterval(timer);
      await reporting; // so that no report written before the stop lands after the final one
    },
    stopped: () =>
      reporter.stopped().catch((err: unknown) => log.warn({ err: String(err) }, 'daemon-status.json not written')),
  };
}

async function handle(
  rt: Runtime,
  log: Logger,
  request: BackfillRequest,
  daemonStopping: () => boolean,
): Promise<void> {
  const dir = rt.config.state.dir;
  const plan = planBackfill(rt.collector, { from: request.from, to: request.to }, request.jobs);
  const status: BackfillStatus = {
    id: request.id,
    state: request.dryRun ? 'planned' : 'running',
    plan: planSummary(plan),
    spansDone: 0,
    points: 0,
    calls: {},
    failed: [],
    setAside: 0,
    startedAt: rt.clock.now(),
    updatedAt: rt.clock.now(),
    pid: process.pid,
  };
  await writeStatus(dir, status);
  if (request.dryRun) return;
  log.info(
    {
      event: 'backfill_handed_over',
      id: request.id,
      from: new Date(request.from).toISOString(),
      to: new Date(request.to).toISOString(),
      spans: plan.spans,
    },
    'backfill handed over: running',
  );
  const range = { from: request.from, to: request.to };
  const owned = await OwnedRange.start(
    dir,
    { ...range, jobs: request.jobs, command: request.command ?? resumeCommand(undefined, range, request.jobs) },
    plan,
    rt.clock,
    (err) => log.warn({ id: request.id, err: String(err) }, 'backfill range not recorded'),
  );
  // A cancel drops the backfill's calls still waiting for quota: behind a catch-up's live calls they wait minutes.
  const cancel = new AbortController();
  const cancelled = () => cancel.signal.aborted;
  let ended = false;
  let lastWrite = 0;
  const poll = setInterval(() => {
    void isCancelled(dir, request.id).then((c) => c && !cancelled() && cancel.abort());
  }, POLL_MS);
  try {
    const outcome = await executeBackfill(rt.collector, plan, {
      shouldStop: daemonStopping,
      signal: cancel.signal,
      onSpan: (job, span) => {
        // A span under way at the cancel is confirmed later: the final status is written already.
        if (ended) return;
        owned.spanDone();
        status.spansDone++;
        status.calls[job.api] = (status.calls[job.api] ?? 0) + job.callsFor(span).least;
        if (rt.clock.now() - lastWrite >= STATUS_EVERY_MS) {
          lastWrite = rt.clock.now();
          status.updatedAt = lastWrite;
          void writeStatus(dir, { ...status }).catch(() => {});
        }
      },
    });
    ended = true;
    // A daemon stopping leaves the request running: the next start resumes it.
    if (daemonStopping() && !cancelled()) return;
    const state: RangeEnd = cancelled()
      ? 'cancelled'
      : outcome.failed.length > 0 || outcome.setAside > 0
        ? 'incomplete'
        : 'done';
    await owned.end(state, pendingIn(rt.collector));
    Object.assign(status, {
      points: outcome.points,
      failed: outcome.failed,
      setAside: outcome.setAside,
      refused: outcome.refused,
      state,
      updatedAt: rt.clock.now(),
    } satisfies Partial<BackfillStatus>);
    await writeStatus(dir, status);
    log.info(
      { id: request.id, state: status.state, spans: status.spansDone, points: status.points, refused: status.refused },
      'handed-over backfill ended',
    );
  } catch (err) {
    await owned.end('incomplete', pendingIn(rt.collector));
    throw err;
  } finally {
    clearInterval(poll);
  }
}
