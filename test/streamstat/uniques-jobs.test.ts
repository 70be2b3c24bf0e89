import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/loader.js';
import { checkConfig } from '../../src/config/rules.js';
import { streamstatJobs } from '../../src/sources/streamstat/jobs.js';
import { StreamstatShape } from '../../src/sources/streamstat/shape.js';
import { DAY, HOUR, MINUTE } from '../../src/time.js';
import { fieldOf } from '../helpers/config-error.js';

const minimal = {
  api: { baseUrl: 'http://127.0.0.1:1', token: 'secret-token-123' },
  accounts: ['acme'],
  sink: { type: 'file', path: '-' },
};

function configWith(streamstat: Record<string, unknown>, state?: Record<string, unknown>) {
  const config = parseConfig({ ...minimal, jobs: { streamstat }, ...(state ? { state } : {}) }, {});
  checkConfig(config);
  return config;
}

const context = { accounts: ['acme'], pageSize: 1000 };
const DAY_SPAN = { from: Date.UTC(2026, 2, 9), to: Date.UTC(2026, 2, 10) };

describe('jobs.streamstat.uniques', () => {
  it('defaults to hourly + daily uniques: a checkpointed job per account and grouping, a lag after the period', () => {
    const c = configWith({ groupings: ['total', 'streams'] });
    expect(c.jobs.streamstat.uniques).toEqual(['PT1H', 'P1D']);
    const jobs = streamstatJobs(c.jobs.streamstat, context);
    expect(jobs.map((j) => j.key)).toEqual([
      'streamstat/acme/total',
      'streamstat/acme/total/users_hourly',
      'streamstat/acme/total/users_daily',
      'streamstat/acme/streams',
      'streamstat/acme/streams/users_hourly',
      'streamstat/acme/streams/users_daily',
    ]);
    expect(jobs.every((j) => j.checkpointed && j.api === 'streamstat')).toBe(true);
    const rule = (key: string) => jobs.find((j) => j.key === key)!.rule;
    // One call may span the default cap of 31 days (the answer size budget allows far more):
    // a month of periods a call.
    expect(rule('streamstat/acme/total/users_hourly')).toMatchObject({
      stepMs: HOUR,
      delayMs: 5 * MINUTE,
      maxSpanMs: 31 * DAY,
    });
    expect(rule('streamstat/acme/total/users_daily')).toMatchObject({
      stepMs: DAY,
      delayMs: 5 * MINUTE,
      maxSpanMs: 31 * DAY,
    });
  });

  it('[] disables them; one period alone gives its jobs only', () => {
    expect(streamstatJobs(configWith({ uniques: [] }).jobs.streamstat, context).map((j) => j.key)).toEqual([
      'streamstat/acme/total',
      'streamstat/acme/streams',
      'streamstat/acme/stream-types',
    ]);
    const daily = streamstatJobs(configWith({ groupings: ['total'], uniques: ['P1D'] }).jobs.streamstat, context);
    expect(daily.map((j) => j.key)).toEqual(['streamstat/acme/total', 'streamstat/acme/total/users_daily']);
  });

  it('counts the calls a span costs: one per call span in buckets, one per period once the answers are flat', () => {
    const shape = new StreamstatShape();
    const jobs = streamstatJobs(configWith({ groupings: ['total'] }).jobs.streamstat, context, shape);
    const calls = (suffix: string, span: { from: number; to: number }) =>
      jobs.find((j) => j.key.endsWith(suffix))!.callsFor(span).least;
    const sixHours = { from: DAY_SPAN.from, to: DAY_SPAN.from + 6 * HOUR };
    expect([calls('/total', sixHours), calls('/users_hourly', sixHours), calls('/users_daily', DAY_SPAN)]).toEqual([
      1, 1, 1,
    ]);
    shape.markFlat('PT5M');
    expect([calls('/total', sixHours), calls('/users_hourly', sixHours), calls('/users_daily', DAY_SPAN)]).toEqual([
      72, 6, 1,
    ]);
  });

  it('refuses a bad list, naming the field: unknown period, duplicate; total with accounts (same cdn_views)', () => {
    expect(fieldOf(() => configWith({ uniques: ['PT5M'] }))).toBe('jobs.streamstat.uniques.0');
    expect(fieldOf(() => configWith({ uniques: ['P1D', 'P1D'] }))).toBe('jobs.streamstat.uniques.1');
    expect(fieldOf(() => configWith({ groupings: ['total', 'streams', 'accounts'] }))).toBe(
      'jobs.streamstat.groupings.2',
    );
  });

  it('needs a horizon that reaches a whole day plus lag while daily uniques are collected', () => {
    expect(fieldOf(() => configWith({}, { horizon: '12h' }))).toBe('state.horizon');
    expect(configWith({ uniques: ['PT1H'] }, { horizon: '12h' }).state.horizon).toBe(12 * HOUR);
  });
});
