/**
 * Planning of a collection range: which calls to make (oldest first) and what they cost under the quotas. Pure.
 */
import type { ApiName } from '../spec/apis.js';
import type { QuotaRule, QuotaSet } from '../limit/types.js';
import { missingSpans, validateRule, type Span, type WindowRule } from './windows.js';

export interface JobDescriptor {
  key: string;
  api: ApiName;
  rule: WindowRule;
  /** HTTP calls one span costs (pages, per-account fan-out); default 1. */
  callsPerSpan?: number;
}

/** One span of one job to read. It costs its job's `callsPerSpan` calls. */
export interface PlannedCall {
  key: string;
  api: ApiName;
  span: Span;
}

export interface Plan {
  /** Oldest span first; jobs in the order given when spans start together. */
  calls: PlannedCall[];
  /** HTTP calls per API (spans × callsPerSpan). */
  callsPerApi: Partial<Record<ApiName, number>>;
  /** The least time each API's quota imposes on its calls (see `estimateDuration`). */
  durationPerApiMs: Partial<Record<ApiName, number>>;
  /** The least time the whole plan takes: APIs have separate quotas and run side by side, so the slowest API. */
  minDurationMs: number;
}

/**
 * The calls that fill what `confirmed` (spans per job key) lacks of [from, to), and their estimate under `quotas`.
 * Only whole windows are planned; windows not yet collectable are the caller's concern (clip `to` with collectableEnd).
 */
export function planCalls(
  jobs: readonly JobDescriptor[],
  range: Span,
  confirmed: Readonly<Record<string, readonly Span[]>> | ReadonlyMap<string, readonly Span[]>,
  quotas: QuotaSet = {},
): Plan {
  const confirmedOf = (key: string): readonly Span[] =>
    (confirmed instanceof Map ? confirmed.get(key) : (confirmed as Record<string, readonly Span[]>)[key]) ?? [];
  const calls: Array<PlannedCall & { order: number }> = [];
  const callsPerApi: Partial<Record<ApiName, number>> = {};
  jobs.forEach((job, order) => {
    validateRule(job.rule, { name: job.key });
    const perSpan = job.callsPerSpan ?? 1;
    const jobSpans = missingSpans(job.rule, confirmedOf(job.key), range.from, range.to);
    for (const span of jobSpans) calls.push({ key: job.key, api: job.api, span, order });
    if (jobSpans.length > 0) callsPerApi[job.api] = (callsPerApi[job.api] ?? 0) + jobSpans.length * perSpan;
  });
  calls.sort((a, b) => a.span.from - b.span.from || a.order - b.order);
  const durationPerApiMs: Partial<Record<ApiName, number>> = {};
  for (const [api, count] of Object.entries(callsPerApi) as Array<[ApiName, number]>) {
    durationPerApiMs[api] = estimateDuration(count, quotas[api] ?? null);
  }
  return {
    calls: calls.map(({ key, api, span }) => ({ key, api, span })),
    callsPerApi,
    durationPerApiMs,
    minDurationMs: Math.max(0, ...Object.values(durationPerApiMs)),
  };
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
export function estimateDuration(callsPerApi: Partial<Record<ApiName, number>>, quotas: QuotaSet, transitMs?: number): number;
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
