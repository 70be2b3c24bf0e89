/**
 * The backfill planner: which spans of which jobs a range still lacks (the same `pending` a pass runs), what they cost
 * in calls per API, and the least time the quotas impose on them. `backfill --dry-run` prints it; `runBackfill` runs
 * it.
 */
import type { QuotaRule, QuotaSet } from '../limit/types.js';
import type { CollectJob, Span } from '../contracts/job.js';
import type { ApiName } from '../spec/apis.js';
import { selects, type JobSelection } from './job-selection.js';

/** Where the planner reads jobs and their pending spans: the Collector, so the plan is what a pass would do. */
export interface PendingSource {
  readonly jobs: readonly CollectJob[];
  pending(job: CollectJob, range?: Span, now?: number): Span[];
}

/** What spans cost per API: the least and the most calls (SpanCalls), and the APIs whose paging can add calls. */
export interface PlannedCalls {
  calls: Partial<Record<ApiName, number>>;
  callsMost: Partial<Record<ApiName, number>>;
  pagingMayAdd: ApiName[];
}

/**
 * `calls`: the least calls per API, spans × calls per span (the pages of reads whose length is known included);
 * `callsMost`: the most while the groups per bucket are as paging knows them (SpanCalls.most) — the run lands in
 * between; `pagingMayAdd`: APIs whose reads are paged by rows not known in advance (more groups add calls).
 */
export interface BackfillPlan extends PlannedCalls {
  range: Span;
  jobs: Array<{ job: CollectJob; spans: Span[] }>;
  spans: number;
}

/** The checkpointed jobs `selection` selects (all when empty; the rule: job-selection.ts), and their missing spans. */
export function planBackfill(source: PendingSource, range: Span, selection: JobSelection = []): BackfillPlan {
  const selected = source.jobs.filter((j) => selects(selection, j));
  const jobs = selected.map((job) => ({ job, spans: source.pending(job, range) }));
  const spans = jobs.reduce((n, j) => n + j.spans.length, 0);
  return { range, jobs, ...callsOf(jobs), spans };
}

/** The least and most calls per API that `spans` of each job cost, and the APIs whose paging can add to them. */
export function callsOf(jobs: ReadonlyArray<{ job: CollectJob; spans: readonly Span[] }>): PlannedCalls {
  const calls: Partial<Record<ApiName, number>> = {};
  const callsMost: Partial<Record<ApiName, number>> = {};
  const paged = new Set<ApiName>();
  for (const { job, spans } of jobs) {
    for (const span of spans) {
      const cost = job.callsFor(span);
      calls[job.api] = (calls[job.api] ?? 0) + cost.least;
      callsMost[job.api] = (callsMost[job.api] ?? 0) + cost.most;
      if (cost.paged) paged.add(job.api);
    }
  }
  return { calls, callsMost, pagingMayAdd: [...paged] };
}

/**
 * The least time `k` calls take under a quota of N calls per period P:
 *
 *     duration(k) = (⌈k / N⌉ − 1) · (P + transitMs) + transitMs        (0 when k = 0)
 *
 * The first N calls go at once; every further batch of N has to wait a full period after the completions of the
 * batch before it (the limiter holds a slot until the response is back), hence one transit per period boundary, and
 * the last batch takes one transit to finish. `transitMs` is one call's round trip (default 0: periods only).
 * Without a quota (null) all calls could go at once: one transit.
 *
 * With several APIs (`callsPerApi`, `quotas`) the result is the slowest API's duration: their quotas are separate.
 */
export function estimateDuration(calls: number, quota: QuotaRule | null, transitMs?: number): number;
export function estimateDuration(
  callsPerApi: Partial<Record<ApiName, number>>,
  quotas: QuotaSet,
  transitMs?: number,
): number;
export function estimateDuration(
  calls: number | Partial<Record<ApiName, number>>,
  quota: QuotaRule | null | QuotaSet,
  transitMs = 0,
): number {
  if (typeof calls !== 'number') {
    const quotas = (quota ?? {}) as QuotaSet;
    const durations = (Object.entries(calls) as Array<[ApiName, number]>).map(([api, k]) =>
      estimateDuration(k, quotas[api] ?? null, transitMs),
    );
    return Math.max(0, ...durations);
  }
  if (calls <= 0) return 0;
  const rule = quota as QuotaRule | null;
  if (!rule) return transitMs;
  const periods = Math.ceil(calls / rule.calls) - 1;
  return periods * (rule.periodMs + transitMs) + transitMs;
}
