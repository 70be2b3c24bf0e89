/**
 * Whether the configured work fits the quotas: the calls each API needs per quota period in steady state
 * — once caught up, every pass reads what became collectable since the one before — against the calls it may make.
 * Work that needs more never keeps up; `run` and `run --check` say so with these numbers.
 */
import type { CollectJob, Span } from '../contracts/job.js';
import type { ApiName, QuotaRule } from '../spec/apis.js';
import { floorTo } from '../time.js';

export interface ApiDemand {
  api: ApiName;
  /** Calls needed per quota period (at least: paged reads count their first page). */
  needed: number;
  quota: QuotaRule;
  /** needed ÷ quota.calls: above 1 the API cannot keep up. */
  ratio: number;
  /** A source of snapshots (DVR): its streams, `needed` being one per stream and interval. */
  snapshots?: { streams: number; intervalMs: number };
}

export interface DemandOptions {
  /** The time between two passes of an API (its cron schedule); undefined: one pass per window. */
  passGapMs?(api: ApiName): number | undefined;
  /** Where steady state is looked at (calls of some jobs depend on the time, e.g. current spans). */
  now: number;
  /** Whether an API's jobs snapshot the present (its Source's `snapshots`): counted as snapshots, not windows. */
  snapshots?(api: ApiName): boolean;
}

/**
 * Steady-state calls per quota period of every API that has jobs and a quota. Jobs must be built without quota-driven
 * turns (dvrJobs without `quota`): this is the demand of the configuration, not what the turns let through.
 */
export function quotaDemand(
  jobs: readonly CollectJob[],
  quotas: Partial<Record<ApiName, QuotaRule | null>>,
  options: DemandOptions,
): ApiDemand[] {
  const byApi = new Map<ApiName, CollectJob[]>();
  for (const job of jobs) {
    const list = byApi.get(job.api);
    if (list) list.push(job);
    else byApi.set(job.api, [job]);
  }
  const out: ApiDemand[] = [];
  for (const [api, apiJobs] of byApi) {
    const quota = quotas[api];
    if (!quota) continue;
    const gap = options.passGapMs?.(api);
    const needed = apiJobs.reduce((n, job) => n + callsPerPeriod(job, quota.periodMs, gap, options.now), 0);
    const demand: ApiDemand = { api, needed, quota, ratio: needed / quota.calls };
    const streams = apiJobs.length;
    if (options.snapshots?.(api)) demand.snapshots = { streams, intervalMs: snapshotGapMs(apiJobs[0]!, gap) };
    out.push(demand);
  }
  return out;
}

/**
 * One job's calls per period. A job without checkpoints reads its current spans at every pass (a snapshot: the
 * current window; provisional reads: the closed windows not final yet). A checkpointed job reads, per pass, the windows
 * that
 * closed since the pass before, in spans of at most maxSpan: as many calls as spans of that width fit in the period.
 */
function callsPerPeriod(job: CollectJob, periodMs: number, gapMs: number | undefined, now: number): number {
  const { stepMs, maxSpanMs } = job.rule;
  const costOf = (span: Span) => job.callsFor(span).least;
  if (!job.checkpointed) {
    const current = floorTo(now, stepMs);
    const spans = job.currentSpans?.(now) ?? [{ from: current, to: current + stepMs }];
    return (periodMs / snapshotGapMs(job, gapMs)) * spans.reduce((n, span) => n + costOf(span), 0);
  }
  const width = Math.min(maxSpanMs, Math.max(stepMs, floorTo(gapMs ?? stepMs, stepMs)));
  const from = floorTo(now - width, stepMs);
  return (periodMs / width) * costOf({ from, to: from + width });
}

/** How often a job without checkpoints reads: at every pass; without a schedule, once per window. */
function snapshotGapMs(job: CollectJob, gapMs: number | undefined): number {
  return Math.max(gapMs ?? job.rule.stepMs, 1);
}

/** Only the APIs whose configured work exceeds their quota. */
export function overQuota(demands: readonly ApiDemand[]): ApiDemand[] {
  return demands.filter((d) => d.ratio > 1);
}

/**
 * The line that says it, e.g. `dvr: 102 snapshots/min needed, quota 60/min: each stream is read every 1m42s instead of
 * every 1m`, or for a windowed API `statistic: 12 calls/min needed, quota 5/min: collection falls behind 2.4× …`.
 */
export function demandLine(d: ApiDemand): string {
  const per = `/${periodText(d.quota.periodMs)}`;
  const unit = d.snapshots ? 'snapshots' : 'calls';
  const needed = `${formatCount(d.needed)} ${unit}${per} needed, quota ${d.quota.calls}${per}`;
  if (d.snapshots) {
    const stretched = Math.round(d.snapshots.intervalMs * d.ratio);
    return (
      `${d.api}: ${needed}: each stream is read every ${durationWords(stretched)} instead of every ` +
      `${durationWords(d.snapshots.intervalMs)} (streams take turns)`
    );
  }
  return (
    `${d.api}: ${needed}: collection falls behind further at every pass (${formatCount(d.ratio)}× the quota); ` +
    `fewer jobs, wider windows or a higher quota would fit`
  );
}

function periodText(ms: number): string {
  return ms === 60_000 ? 'min' : durationWords(ms);
}

function formatCount(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(n < 10 ? 2 : 1);
}

/** 102000 → `1m42s`, 3600000 → `1h`, 1500 → `1.5s`. */
export function durationWords(ms: number): string {
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
  ] as const) {
    const whole = Math.floor(rest / size);
    if (whole > 0) parts.push(`${whole}${unit}`);
    rest -= whole * size;
  }
  if (rest > 0 || parts.length === 0) parts.push(`${Number((rest / 1000).toFixed(3))}s`);
  return parts.join('');
}
