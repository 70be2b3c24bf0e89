import { describe, expect, it } from 'vitest';
import { noJobMatches, selects } from '../../src/plan/job-selection.js';
import { planBackfill } from '../../src/plan/planner.js';
import { metricsRule } from '../../src/plan/windows.js';
import { SINGLE_CALL } from '../../src/paging/walk.js';
import type { CollectJob } from '../../src/sources/common/types.js';

const job = (key: string, extra: Partial<CollectJob> = {}): CollectJob => ({
  key,
  api: 'metrics',
  rule: metricsRule(10),
  checkpointed: true,
  callsFor: () => SINGLE_CALL,
  collect: async () => [],
  ...extra,
});

const JOBS = [
  job('metrics/acme'),
  job('metrics_resource/acme'),
  job('statistic/acme/total'),
  job('statistic/acme/countries'),
  job('statistic/*/total', { sharedKeys: () => ['statistic/acme/total', 'statistic/beta/total'] }),
  job('streamstat/acme/total'),
  job('dvr/acme/live', { checkpointed: false }),
];
const selected = (prefixes: string[]) => JOBS.filter((j) => selects(prefixes, j)).map((j) => j.key);

describe('--jobs: a job is selected when one of its keys starts with the text', () => {
  it('`metrics` selects metrics/… and metrics_resource/…', () => {
    expect(selected(['metrics'])).toEqual(['metrics/acme', 'metrics_resource/acme']);
  });

  it('the backfill plan takes the jobs so selected', () => {
    const plan = planBackfill({ jobs: JOBS, pending: () => [] }, { from: 0, to: 600_000 }, ['metrics', 'stat']);
    expect(plan.jobs.map((j) => j.job.key)).toEqual([
      'metrics/acme',
      'metrics_resource/acme',
      'statistic/acme/total',
      'statistic/acme/countries',
      'statistic/*/total',
    ]);
  });

  it('`metrics/` selects metrics/… alone', () => {
    expect(selected(['metrics/'])).toEqual(['metrics/acme']);
  });

  it('`stat` selects every statistic job (and not streamstat)', () => {
    expect(selected(['stat'])).toEqual(['statistic/acme/total', 'statistic/acme/countries', 'statistic/*/total']);
  });

  it('an account prefix selects the shared totals job that reads it', () => {
    expect(selected(['statistic/beta'])).toEqual(['statistic/*/total']);
  });

  it('no text selects every checkpointed job; a job without checkpoints is never selected', () => {
    expect(selected([])).toHaveLength(JOBS.length - 1);
    expect(selected(['dvr'])).toEqual([]);
  });

  it('a predicate selects what it says (the retry of exact keys)', () => {
    expect(JOBS.filter((j) => selects((x) => x.key === 'metrics/acme', j)).map((j) => j.key)).toEqual(['metrics/acme']);
  });

  it('"no job matches" lists the keys there are', () => {
    const message = noJobMatches(['nope'], JOBS);
    expect(message).toMatch(/^--jobs nope: no job key starts with it; the keys are: /);
    expect(message).toContain('metrics/acme, metrics_resource/acme');
    expect(message).toContain('statistic/beta/total');
    expect(message).not.toContain('dvr/');
  });

  it('"no job matches" lists the first 20 keys and counts the others', () => {
    const many = Array.from({ length: 25 }, (_, i) => job(`metrics/a${String(i).padStart(2, '0')}`));
    const message = noJobMatches(['x', 'y'], many);
    expect(message).toMatch(/^--jobs x, y: no job key starts with any of them; the keys are: metrics\/a00, /);
    expect(message).toMatch(/metrics\/a19 and 5 more$/);
  });
});
