import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { evaluateHealth } from '../../src/telemetry/health.js';
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { SetJobFacts } from '../helpers/job-facts.js';

const T0 = Date.UTC(2026, 0, 1);

function setup(failing = {}) {
  const clock = new ManualClock(T0);
  const telemetry = new Telemetry({ clock, failing: { apiAfterMs: 60_000, sinkAfterMs: 30_000, ...failing } });
  const health = () => evaluateHealth(telemetry, { maxLagMs: 3_600_000 });
  return { clock, telemetry, health };
}

describe('failing APIs and sink in /healthz', () => {
  it('an API whose every call failed for apiFailingAfter is unhealthy; one success clears it', async () => {
    const { clock, telemetry, health } = setup();
    telemetry.apiCall('statistic', 503);
    clock.advance(30_000);
    telemetry.apiCall('statistic', 'timeout');
    telemetry.apiCall('statistic', 'network');
    expect(health().status).toBe('ok'); // failing for 30 s only
    clock.advance(30_000);
    expect(health()).toMatchObject({
      status: 'unhealthy',
      reasons: {
        'api:statistic': 'every call failed for 60 s (3 calls since 2026-01-01T00:00:00.000Z, last: network)',
      },
    });
    expect(await telemetry.prometheus()).toMatch(/^cdn_collector_unhealthy\{condition="api:statistic"\} 1$/m);
    telemetry.apiCall('statistic', 200);
    expect(health().status).toBe('ok');
  });

  it("a 404 or 400 is the span's fault, not the API failing: it clears the failures like a success", () => {
    const { clock, telemetry, health } = setup();
    for (const outcome of [500, 429, 'timeout'] as const) telemetry.apiCall('dvr', outcome);
    telemetry.apiCall('dvr', 404);
    clock.advance(120_000);
    expect(health().status).toBe('ok');
  });

  it('one failed call on a rarely called API is a blip, not an outage', () => {
    const { clock, telemetry, health } = setup();
    telemetry.apiCall('statistic', 500);
    clock.advance(3_600_000);
    expect(health().status).toBe('ok');
  });

  it('a refused fixed token is unhealthy at once; a renewable one after the refusal that follows its renewal', () => {
    const fixed = setup();
    fixed.telemetry.apiCall('metrics', 401);
    expect(fixed.health().reasons?.['api:metrics']).toMatch(
      /^every call refused with 401 since .*\(1 call\): the token/,
    );

    const renewable = setup({ refusalsToFail: 2 });
    renewable.telemetry.apiCall('metrics', 401);
    expect(renewable.health().status).toBe('ok'); // the client renews the token and tries again
    renewable.telemetry.apiCall('metrics', 200);
    renewable.telemetry.apiCall('metrics', 401);
    expect(renewable.health().status).toBe('ok'); // counted since the last success
    renewable.telemetry.apiCall('metrics', 403);
    expect(renewable.health().reasons?.['api:metrics']).toMatch(/refused with 403 .*\(2 calls\)/);
  });

  it('one record answers when an API began failing: 429s are waits, not failures; a served call ends it', () => {
    const { clock, telemetry } = setup();
    telemetry.apiCall('statistic', 429);
    expect(telemetry.apiFailingSince('statistic')).toBeUndefined();
    clock.advance(1_000);
    telemetry.apiCall('statistic', 500);
    clock.advance(1_000);
    telemetry.apiCall('statistic', 'timeout');
    expect(telemetry.apiFailingSince('statistic')).toBe(T0 + 1_000);
    telemetry.apiCall('statistic', 400);
    expect(telemetry.apiFailingSince('statistic')).toBeUndefined();
  });

  it('429s are waits: a run of them alone is not failing; among failures they neither count nor end the run', () => {
    const { clock, telemetry, health } = setup();
    for (let i = 0; i < 5; i++) {
      telemetry.apiCall('statistic', 429);
      clock.advance(30_000);
    }
    expect(health().status).toBe('ok');
    const since = clock.now();
    telemetry.apiCall('statistic', 500);
    clock.advance(30_000);
    for (const outcome of [429, 503, 429, 'timeout'] as const) telemetry.apiCall('statistic', outcome);
    clock.advance(30_000);
    expect(health().reasons).toEqual({
      'api:statistic': `every call failed for 60 s (3 calls since ${new Date(since).toISOString()}, last: timeout)`,
    });
  });

  it('a sink whose writes all failed for sinkFailingAfter is unhealthy until the database answers a write', () => {
    const { clock, telemetry, health } = setup();
    expect(telemetry.sinkWriteFailed('ECONNREFUSED')).toMatchObject({ since: T0, failures: 1 });
    clock.advance(29_000);
    telemetry.sinkWriteFailed('HTTP 500');
    expect(health().status).toBe('ok');
    clock.advance(1_000);
    expect(health().reasons).toEqual({
      sink: 'every write failed for 30 s (2 failed writes since 2026-01-01T00:00:00.000Z)',
    });
    // Lines confirmed by a request of a write that failed as a whole do not end the run: the write is what counts.
    telemetry.pointsWritten('cdn_metrics', 5);
    expect(health().reasons).toEqual({
      sink: 'every write failed for 30 s (2 failed writes since 2026-01-01T00:00:00.000Z)',
    });
    expect(telemetry.sinkWriteAnswered()).toMatchObject({ since: T0, failures: 2, last: 'HTTP 500' });
    expect(health().status).toBe('ok');
    expect(telemetry.sinkWriteAnswered()).toBeUndefined(); // no run left to end
  });
});

describe('job lag in /healthz', () => {
  const HOUR = 3_600_000;
  it('allows a job its lag by design (delay + one window) on top of maxLag; a per-job limit taken as written', () => {
    const { clock, telemetry, health } = setup();
    const jobs = SetJobFacts.watchedBy(telemetry, clock);
    // A daily uniques job read 5 min after the day ends: caught up, it is up to a day and 5 min behind.
    const builtIn = 24 * HOUR + 5 * 60_000;
    jobs.lag('streamstat/acme/total/users_daily', 23 * HOUR, builtIn);
    jobs.lag('metrics/acme', 5 * 60_000, 6 * 60_000);
    expect(health().status).toBe('ok');
    clock.advance(2 * HOUR); // 25 h behind: within 1 h (maxLag) of its built-in lag
    jobs.lag('metrics/acme', 5 * 60_000, 6 * 60_000);
    expect(health().status).toBe('ok');
    clock.advance(2 * HOUR); // 27 h: more than an hour beyond
    jobs.lag('metrics/acme', 5 * 60_000, 6 * 60_000);
    expect(health()).toMatchObject({
      status: 'lagging',
      reasons: { 'streamstat/acme/total/users_daily': expect.stringMatching(/^lag /) },
    });
    expect(Object.keys(health().reasons ?? {})).toEqual(['streamstat/acme/total/users_daily']);
    expect(
      evaluateHealth(telemetry, { maxLagMs: HOUR, jobMaxLagMs: { 'streamstat/acme/total/users_daily': 30 * HOUR } })
        .status,
    ).toBe('ok');
    expect(
      evaluateHealth(telemetry, {
        maxLagMs: 100 * HOUR,
        jobMaxLagMs: { 'streamstat/acme/total/users_daily': 26 * HOUR },
      }).status,
    ).toBe('lagging');
  });
});
