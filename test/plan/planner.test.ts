import { describe, expect, it } from 'vitest';
import { pendingSpans } from '../../src/plan/pending.js';
import { estimateDuration, planBackfill, type PendingSource } from '../../src/plan/planner.js';
import { metricsRule, statisticRule, type WindowRule } from '../../src/plan/windows.js';
import { GROUPED_CALLS, knownRowsCalls, SINGLE_CALL } from '../../src/paging/walk.js';
import type { CollectJob, Span } from '../../src/sources/common/types.js';
import type { ApiName } from '../../src/spec/apis.js';
import { DAY, HOUR, MINUTE } from '../../src/time.js';
import { pendingState } from '../helpers/pending-state.js';

const T0 = Date.UTC(2024, 0, 15, 0, 0);

describe('estimateDuration', () => {
  const quota = { calls: 5, periodMs: MINUTE };

  it('k calls need ⌈k/N⌉ − 1 full periods', () => {
    expect(estimateDuration(0, quota)).toBe(0);
    expect(estimateDuration(1, quota)).toBe(0);
    expect(estimateDuration(5, quota)).toBe(0);
    expect(estimateDuration(6, quota)).toBe(MINUTE);
    expect(estimateDuration(10, quota)).toBe(MINUTE);
    expect(estimateDuration(11, quota)).toBe(2 * MINUTE);
    expect(estimateDuration(288, quota)).toBe(57 * MINUTE);
  });

  it('adds one transit per period boundary and one for the last batch', () => {
    expect(estimateDuration(11, quota, 200)).toBe(2 * (MINUTE + 200) + 200);
    expect(estimateDuration(3, null, 200)).toBe(200);
    expect(estimateDuration(1000, null)).toBe(0);
  });

  it('takes the slowest API when given calls per API', () => {
    const quotas = { statistic: quota, streamstat: { calls: 30, periodMs: MINUTE }, metrics: null };
    expect(estimateDuration({ statistic: 11, streamstat: 100, metrics: 5000 }, quotas)).toBe(3 * MINUTE);
    expect(estimateDuration({}, quotas)).toBe(0);
  });
});

describe('planBackfill', () => {
  const metrics = job('metrics/total', 'metrics', metricsRule(10, 2 * MINUTE), () => SINGLE_CALL);
  // 5-minute buckets, 6 h per call (72 buckets, one page), and /times/<grouping>: paged by groups.
  const statistic = job(
    'statistic/acme/countries',
    'statistic',
    statisticRule(5 * MINUTE, HOUR, 6 * HOUR),
    () => GROUPED_CALLS,
  );
  const dvr = { ...job('dvr/acme/s', 'dvr', metricsRule(1), () => SINGLE_CALL), checkpointed: false };
  const confirmed: Record<string, Span[]> = {
    'metrics/total': [{ from: T0, to: T0 + 40 * MINUTE }],
    'statistic/acme/countries': [{ from: T0 + 6 * HOUR, to: T0 + 12 * HOUR }],
  };
  /** The planner's source as the Collector is: its jobs, and what a pass would collect of a range. */
  const source = (jobs: CollectJob[]): PendingSource => ({
    jobs,
    pending: (j, range) => pendingSpans(j, pendingState(confirmed[j.key] ?? []), T0 + 30 * DAY, range),
  });

  it('plans what each checkpointed job lacks and counts the least calls per API, naming the paged APIs', () => {
    const plan = planBackfill(source([metrics, statistic, dvr]), { from: T0, to: T0 + 12 * HOUR });
    expect(plan.jobs.map((j) => j.job.key)).toEqual(['metrics/total', 'statistic/acme/countries']);
    const spansOf = (key: string) => plan.jobs.find((j) => j.job.key === key)!.spans;
    expect(spansOf('metrics/total')).toHaveLength(12 * 6 - 4);
    expect(spansOf('metrics/total')[0]).toEqual({ from: T0 + 40 * MINUTE, to: T0 + 50 * MINUTE });
    expect(spansOf('statistic/acme/countries')).toEqual([{ from: T0, to: T0 + 6 * HOUR }]);
    expect(plan.calls).toEqual({ metrics: 68, statistic: 1 });
    expect(plan.pagingMayAdd).toEqual(['statistic']);
    expect(plan.spans).toBe(69);
  });

  it('counts the pages of reads whose length the span fixes (1440 one-minute buckets: two pages)', () => {
    const total = job('statistic/acme/total', 'statistic', statisticRule(MINUTE, HOUR, DAY), (span) =>
      knownRowsCalls((span.to - span.from) / MINUTE),
    );
    const plan = planBackfill(source([total]), { from: T0, to: T0 + 2 * DAY });
    expect(plan.spans).toBe(2);
    expect(plan.calls).toEqual({ statistic: 4 });
  });

  it('selects jobs by key or key prefix, and estimates the least duration from the quotas', () => {
    const plan = planBackfill(source([metrics, statistic]), { from: T0, to: T0 + 2 * DAY }, ['statistic/acme']);
    expect(plan.jobs.map((j) => j.job.key)).toEqual(['statistic/acme/countries']);
    expect(plan.calls).toEqual({ statistic: 7 }); // 8 spans of 6 h, one confirmed
    expect(estimateDuration(plan.calls, { statistic: { calls: 5, periodMs: MINUTE } })).toBe(MINUTE);
    const all = planBackfill(source([metrics, statistic]), { from: T0, to: T0 + 2 * DAY });
    expect(all.calls).toEqual({ metrics: 288 - 4, statistic: 7 });
  });

  it('plans nothing when everything is confirmed', () => {
    const everything = [{ from: T0 - HOUR, to: T0 + 2 * HOUR }];
    const plan = planBackfill(
      { jobs: [metrics, statistic], pending: (j, range) => pendingSpans(j, pendingState(everything), T0 + DAY, range) },
      { from: T0, to: T0 + HOUR },
    );
    expect(plan.spans).toBe(0);
    expect(plan.calls).toEqual({});
    expect(plan.pagingMayAdd).toEqual([]);
  });
});

function job(key: string, api: ApiName, rule: WindowRule, callsFor: CollectJob['callsFor']): CollectJob {
  return { key, api, rule, checkpointed: true, callsFor, collect: async () => [] };
}
