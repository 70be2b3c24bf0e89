import pLimit from 'p-limit';
import type { ApiName } from '../spec/apis.js';
import type { CollectJob, Span } from '../sources/types.js';
import type { Collector, PassResult } from './collector.js';

export interface BackfillPlan {
  range: Span;
  jobs: Array<{ job: CollectJob; spans: Span[] }>;
  /** Calls per API (spans × calls per span; paging can add calls). */
  calls: Partial<Record<ApiName, number>>;
  spans: number;
}

/** Backfillable jobs whose key starts with one of `filters` (all when empty), and their missing spans. */
export function planBackfill(collector: Collector, range: Span, filters: readonly string[] = []): BackfillPlan {
  const selected = collector.jobs.filter(
    (j) => j.backfill && (filters.length === 0 || filters.some((f) => j.key === f || j.key.startsWith(`${f}/`))),
  );
  const jobs = selected.map((job) => ({ job, spans: collector.pending(job, range) }));
  const calls: Partial<Record<ApiName, number>> = {};
  for (const { job, spans } of jobs) calls[job.api] = (calls[job.api] ?? 0) + spans.length * job.callsPerSpan;
  return { range, jobs, calls, spans: jobs.reduce((n, j) => n + j.spans.length, 0) };
}

/**
 * Runs a plan: jobs side by side (the per-API limiters keep every call inside its quota), each job's spans oldest
 * first. Resumable: confirmed spans are checkpointed, so a rerun after a kill only does what is still missing.
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
