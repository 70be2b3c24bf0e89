import type { Clock } from '../clock.js';
import type { Collector } from '../collector/collector.js';
import type { CollectorConfig } from '../config/schema.js';
import type { Logger } from '../log.js';
import { planBackfill } from '../plan/planner.js';
import { isCancelled, planSummary, writeStatus, type BackfillRequest, type BackfillStatus } from './requests.js';
import { executeBackfill } from './backfill.js';
import { OwnedRange, pendingIn, resumeCommand, type RangeEnd } from './owned-range.js';

/** What of the daemon a handed-over backfill runs on: its config, collector (limiter, checkpoints) and clock. */
export interface BackfillHost {
  readonly config: CollectorConfig;
  readonly collector: Collector;
  readonly clock: Clock;
}

/** How often a running backfill looks for its cancellation. */
const CANCEL_POLL_MS = 1_000;
/** The status file of a running backfill is rewritten at most this often. */
const STATUS_EVERY_MS = 500;

/**
 * Runs one request through the daemon's own collector at backfill priority and keeps its status file; loaded by the
 * daemon when a request arrives (backfill/server.ts), not at start.
 */
export async function runHandedOver(
  rt: BackfillHost,
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
  }, CANCEL_POLL_MS);
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
      ...(outcome.sinkFull === undefined ? {} : { sinkFull: outcome.sinkFull }),
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
