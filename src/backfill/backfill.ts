import pLimit from 'p-limit';
import { planBackfill, type BackfillPlan } from '../plan/planner.js';
import type { CollectJob, Span } from '../sources/common/types.js';
import type { Collector, PassResult } from '../collector/collector.js';

/** The code of a sink whose file cannot grow (SinkSpaceError). */
const NO_ROOM_CODE = 'CDN_ERR_SINK_SPACE';

/** Spans per pass: between passes a backfill can stop (Ctrl-C, a cancelled request) without waiting for a whole job. */
const SPANS_PER_PASS = 8;

export interface BackfillRunOptions {
  onSpan?: (job: CollectJob, span: Span) => void;
  /** Asked before each span: true stops the backfill after the spans already under way (they are confirmed). */
  shouldStop?: () => boolean;
  /** Stops it like shouldStop, and drops its calls still waiting for quota (a cancelled request). */
  signal?: AbortSignal;
  concurrency?: number;
}

/**
 * Runs a plan (planBackfill): jobs side by side (the per-API limiters keep every call inside its quota), each job's
 * spans oldest first, a few spans per pass. Resumable: confirmed spans are checkpointed, so a rerun after a kill only
 * does what is still missing. Returns one result per job, its passes added up.
 */
export async function runBackfill(
  collector: Collector,
  plan: BackfillPlan,
  options: BackfillRunOptions = {},
): Promise<PassResult[]> {
  const limit = pLimit(options.concurrency ?? 16);
  const { signal } = options;
  // A sink that cannot grow (a full disk) fails every job's next write the same way after its retries: stop them all.
  let noRoom = false;
  const stopped = () => options.shouldStop?.() === true || signal?.aborted === true || noRoom;
  const stop = { shouldStop: stopped, signal };
  const runJob = async (job: CollectJob, spans: Span[]): Promise<PassResult> => {
    const total: PassResult = { key: job.key, spans: 0, points: 0, setAside: 0 };
    for (let i = 0; i < spans.length && !stop.shouldStop(); i += SPANS_PER_PASS) {
      const chunk = spans.slice(i, i + SPANS_PER_PASS);
      // The pass collects what is still pending inside the chunk's range: never a window confirmed meanwhile.
      const range = { from: chunk[0]!.from, to: chunk[chunk.length - 1]!.to };
      const r = await collector.runOnce(job, 'backfill', range, (span) => options.onSpan?.(job, span), stop);
      total.spans += r.spans;
      total.points += r.points;
      total.setAside += r.setAside;
      total.refused = (total.refused ?? 0) + (r.refused ?? 0);
      if (r.error) {
        noRoom ||= r.errorCode === NO_ROOM_CODE;
        return { ...total, error: r.error, ...(r.errorCode ? { errorCode: r.errorCode } : {}) };
      }
    }
    return total;
  };
  return Promise.all(plan.jobs.map(({ job, spans }) => limit(() => runJob(job, spans))));
}

export interface BackfillOutcome {
  spans: number;
  points: number;
  setAside: number;
  /** Points the database refused for good (dead-lettered; their spans are confirmed). */
  refused: number;
  /** Jobs whose last round still ended on an error. */
  failed: string[];
  stopped: boolean;
  /** Why it stopped before the end with no one asking: the sink's file cannot grow (its message: cause and fix). */
  sinkFull?: string;
}

/**
 * Runs the plan, then reruns the jobs that failed while a round makes progress (at most 3 rounds): a transient
 * failure (an API blip, a database restart) does not end a long backfill.
 */
export async function executeBackfill(
  collector: Collector,
  plan: BackfillPlan,
  options: BackfillRunOptions = {},
): Promise<BackfillOutcome> {
  const outcome: BackfillOutcome = { spans: 0, points: 0, setAside: 0, refused: 0, failed: [], stopped: false };
  let current = plan;
  for (let round = 0; round < 3; round++) {
    const results = await runBackfill(collector, current, options);
    outcome.spans += results.reduce((n, r) => n + r.spans, 0);
    outcome.points += results.reduce((n, r) => n + r.points, 0);
    outcome.setAside += results.reduce((n, r) => n + r.setAside, 0);
    outcome.refused += results.reduce((n, r) => n + (r.refused ?? 0), 0);
    outcome.failed = results.filter((r) => r.error).map((r) => r.key);
    if (options.shouldStop?.() || options.signal?.aborted) return { ...outcome, stopped: true };
    const full = results.find((r) => r.errorCode === NO_ROOM_CODE);
    if (full) return { ...outcome, sinkFull: full.error }; // another round would fail alike: space must be made first
    if (outcome.failed.length === 0 || results.every((r) => r.spans === 0)) break;
    const failed = new Set(outcome.failed);
    current = planBackfill(collector, plan.range, (job) => failed.has(job.key));
  }
  return outcome;
}
