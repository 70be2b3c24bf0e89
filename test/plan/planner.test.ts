import { describe, expect, it } from 'vitest';
import { estimateDuration, planCalls, type JobDescriptor } from '../../src/plan/planner.js';
import { metricsRule, statisticRule } from '../../src/plan/windows.js';
import { HOUR, MINUTE } from '../../src/time.js';

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

describe('planCalls', () => {
  const jobs: JobDescriptor[] = [
    { key: 'metrics/total', api: 'metrics', rule: metricsRule(10, 2 * MINUTE) },
    { key: 'statistic/acme/countries', api: 'statistic', rule: statisticRule(5 * MINUTE, HOUR, 6 * HOUR), callsPerSpan: 2 },
  ];

  it('plans what is missing per job, oldest first, and counts calls per API', () => {
    const confirmed = {
      'metrics/total': [{ from: T0, to: T0 + 40 * MINUTE }],
      'statistic/acme/countries': [{ from: T0 + 6 * HOUR, to: T0 + 12 * HOUR }],
    };
    const plan = planCalls(jobs, { from: T0, to: T0 + 12 * HOUR }, confirmed, {
      metrics: { calls: 120, periodMs: MINUTE },
      statistic: { calls: 5, periodMs: MINUTE },
    });
    const metricsCalls = plan.calls.filter((c) => c.key === 'metrics/total');
    const statisticCalls = plan.calls.filter((c) => c.api === 'statistic');
    expect(metricsCalls).toHaveLength(12 * 6 - 4);
    expect(metricsCalls[0]!.span).toEqual({ from: T0 + 40 * MINUTE, to: T0 + 50 * MINUTE });
    expect(statisticCalls.map((c) => c.span)).toEqual([{ from: T0, to: T0 + 6 * HOUR }]);
    expect(plan.callsPerApi).toEqual({ metrics: 68, statistic: 2 });
    for (let i = 1; i < plan.calls.length; i++) {
      expect(plan.calls[i]!.span.from).toBeGreaterThanOrEqual(plan.calls[i - 1]!.span.from);
    }
    // Spans starting together keep the jobs' order.
    expect(plan.calls[0]!.key).toBe('statistic/acme/countries');
    expect(plan.durationPerApiMs).toEqual({ metrics: 0, statistic: 0 });
    expect(plan.minDurationMs).toBe(0);
  });

  it('estimates the least duration from the quotas', () => {
    const plan = planCalls(jobs, { from: T0, to: T0 + 2 * 24 * HOUR }, new Map(), {
      statistic: { calls: 5, periodMs: MINUTE },
      metrics: { calls: 120, periodMs: MINUTE },
    });
    expect(plan.callsPerApi).toEqual({ metrics: 288, statistic: 16 });
    expect(plan.durationPerApiMs.statistic).toBe(3 * MINUTE);
    expect(plan.durationPerApiMs.metrics).toBe(2 * MINUTE);
    expect(plan.minDurationMs).toBe(3 * MINUTE);
  });

  it('plans nothing when everything is confirmed', () => {
    const all = [{ from: T0 - HOUR, to: T0 + 2 * HOUR }];
    const plan = planCalls(jobs, { from: T0, to: T0 + HOUR }, { 'metrics/total': all, 'statistic/acme/countries': all });
    expect(plan.calls).toEqual([]);
    expect(plan.callsPerApi).toEqual({});
    expect(plan.minDurationMs).toBe(0);
  });

  it('rejects a job with an invalid rule, naming the job', () => {
    const bad: JobDescriptor = { key: 'x/y', api: 'dvr', rule: { stepMs: MINUTE, delayMs: 0, maxSpanMs: 0 } };
    expect(() => planCalls([bad], { from: T0, to: T0 + HOUR }, {})).toThrow(/x\/y\.maxSpanMs/);
  });
});
