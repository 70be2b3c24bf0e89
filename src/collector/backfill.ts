import pLimit from 'p-limit';
import type { BackfillPlan } from '../plan/planner.js';
import type { CollectJob, Span } from '../sources/types.js';
import type { Collector, PassResult } from './collector.js';

/**
 * Runs a plan (planBackfill): jobs side by side (the per-API limiters keep every call inside its quota), each job's
 * spans oldest first. Resumable: confirmed spans are checkpointed, so a rerun after a kill only does what is still
 * missing.
 */
export async function runBackfill(
  collector: Collector,
  plan: BackfillPlan,
  onSpan: (job: CollectJob, span: Span) => void = () => {},
  concurrency = 16,
): Promise<PassResult[]> {
  const limit = pLimit(concurrency);
  return Promise.all(
    plan.jobs.map(({ job }) => limit(() => collector.runOnce(job, 'backfill', plan.range, (span) => onSpan(job, span)))),
  );
}
