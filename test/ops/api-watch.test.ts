import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ApiWatch, FAILURE_SUMMARY_MS, NOT_FOUND_LINE_EVERY_MS } from '../../src/telemetry/api-watch.js';
import { classify } from '../../src/failure.js';
import { ApiError, NetworkError } from '../../src/http/errors.js';
import { describeError } from '../../src/limit/outcome.js';
import type { ApiName } from '../../src/spec/apis.js';
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { evaluateHealth } from '../../src/telemetry/health.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { T0 } from '../helpers/fake-job.js';

const request = { api: 'metrics' as const, method: 'GET', url: 'http://cdn.invalid/app/metrics/v1/?account=a' };

interface Line {
  level: number;
  msg: string;
  event?: string;
  reason?: string;
  api?: string;
  failedCalls?: number;
  since?: string;
}

/**
 * One attempt of `api` as the limiter reports it: a `call` event with its status, and the error, its code and its
 * class when it failed.
 */
function observe(watch: ApiWatch, api: ApiName, outcome: unknown): void {
  const described =
    outcome instanceof Error
      ? { ...describeError(outcome), error: outcome, failure: classify(outcome) }
      : { status: (outcome as { status: number }).status };
  watch.observe({ type: 'call', api, attempt: 1, ...described });
}

/**
 * The first-failure reporting behind `run`, one attempt at a time: the process tests
 * (run-feedback.test.ts) show it end to end; here, the run of failures after the first — a summary a minute, one
 * line on recovery — and the counts the `--once` verdict reads.
 */
describe('ApiWatch', () => {
  function watched() {
    const clock = new ManualClock(0);
    const { log, text } = capturedLogger();
    const telemetry = new Telemetry({ clock });
    const watch = new ApiWatch(log, clock, telemetry);
    const lines = () =>
      text()
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Line);
    const attempt = async (outcome: unknown) => observe(watch, 'metrics', outcome);
    return { clock, watch, telemetry, lines, attempt };
  }

  it('reports the first failure at once, then one summary a minute, then the recovery', async () => {
    const { clock, lines, attempt } = watched();
    const dns = new NetworkError(request, 'ENOTFOUND');
    await attempt(dns);
    expect(lines()).toEqual([
      expect.objectContaining({ level: 50, api: 'metrics', event: 'failing', reason: 'ENOTFOUND' }),
    ]);
    for (let i = 0; i < 5; i++) {
      clock.advance(FAILURE_SUMMARY_MS / 10);
      await attempt(dns);
    }
    expect(lines()).toHaveLength(1); // retries within the minute stay quiet
    clock.advance(FAILURE_SUMMARY_MS);
    await attempt(dns);
    expect(lines()[1]).toMatchObject({ level: 40, event: 'still_failing', api: 'metrics', failedCalls: 7 });
    await attempt({ status: 200 });
    expect(lines()[2]).toMatchObject({ level: 30, event: 'answers_again', api: 'metrics', failedCalls: 7 });
    // A new run of failures is reported at once again.
    await attempt(new ApiError({ status: 401, body: {}, request }));
    expect(lines()[3]).toMatchObject({ level: 50, event: 'failing', reason: 'HTTP 401' });
  });

  it(
    'a refusal a renewal is about to cure is an info line; ' + 'an uncured one is an error naming the token source',
    async () => {
      const clock = new ManualClock(0);
      const { log, text } = capturedLogger();
      const watch = new ApiWatch(log, clock, new Telemetry({ clock }), 'the login of api.username (CDN_USERNAME)');
      const refused = (renewal: 'renewing' | 'renewed' | undefined) => {
        const err = new ApiError({
          status: 403,
          body: { status: 'Forbidden', description: 'Invalid token or no access' },
          request,
        });
        err.tokenRenewal = renewal;
        observe(watch, 'metrics', err);
      };
      await refused('renewing');
      const lines = () =>
        text()
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Line);
      expect(lines()).toEqual([expect.objectContaining({ level: 30, event: 'token_renewing' })]);
      await refused('renewed');
      expect(lines()[1]).toMatchObject({
        level: 50,
        msg: expect.stringContaining('renewed token from the login of api.username (CDN_USERNAME)'),
      });
      expect(text()).not.toContain('api.token');
    },
  );

  it('a cured refusal ends its run unsaid; an uncured one is told from the first refusal, as /healthz is', async () => {
    const clock = new ManualClock(T0);
    const { log, text } = capturedLogger();
    const telemetry = new Telemetry({ clock, failing: { refusalsToFail: 2 } });
    const watch = new ApiWatch(log, clock, telemetry);
    const health = () => evaluateHealth(telemetry, { maxLagMs: 3_600_000 });
    const lines = () =>
      text()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Line);
    const refused = (renewal: 'renewing' | 'renewed') => {
      const err = new ApiError({ status: 401, body: { description: 'Token expired' }, request });
      err.tokenRenewal = renewal;
      observe(watch, 'metrics', err);
    };
    refused('renewing');
    observe(watch, 'metrics', { status: 200 }); // cured: no failure was told, so no recovery either
    expect(lines().map((l) => l.level)).toEqual([30]);
    expect(telemetry.apiFailingSince('metrics')).toBeUndefined();

    clock.advance(60_000);
    const since = clock.now();
    refused('renewing');
    clock.advance(2_000);
    refused('renewed');
    expect(lines().slice(1)).toEqual([
      expect.objectContaining({ level: 30, event: 'token_renewing' }),
      expect.objectContaining({ level: 50, event: 'failing', failedCalls: 2 }),
    ]);
    expect(lines()[2]!.since).toBe(new Date(since).toISOString());
    expect(health().reasons?.['api:metrics']).toMatch(
      new RegExp(`^every call refused with 401 since ${new Date(since).toISOString()} \\(2 calls\\)`),
    );
  });

  it('an account proven to have no access: one error line per API and account every 10 min, no run', () => {
    const clock = new ManualClock(T0);
    const { log, text } = capturedLogger();
    const telemetry = new Telemetry({ clock, failing: { refusalsToFail: 1 } });
    const watch = new ApiWatch(log, clock, telemetry, 'api.tokenFile (CDN_TOKEN_FILE)');
    const refused = (account: string) => {
      const err = new ApiError({
        status: 403,
        body: { status: 'Forbidden', description: 'Invalid token or no access' },
        request: { ...request, account },
      });
      err.noAccess = true;
      observe(watch, 'metrics', err);
    };
    const lines = () =>
      text()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Line & { account?: string; refusal?: string });
    refused('nosuch');
    refused('nosuch');
    clock.advance(NOT_FOUND_LINE_EVERY_MS / 2);
    refused('nosuch');
    refused('other');
    expect(lines().map((l) => [l.level, l.refusal, l.account])).toEqual([
      [50, 'no-access', 'nosuch'],
      [50, 'no-access', 'other'],
    ]);
    expect(lines().filter((l) => l.event === 'failing')).toEqual([]);
    expect(telemetry.apiFailingSince('metrics')).toBeUndefined();
    expect(evaluateHealth(telemetry, { maxLagMs: 3_600_000 }).reasons?.['api:metrics']).toBeUndefined();
    clock.advance(NOT_FOUND_LINE_EVERY_MS / 2);
    refused('nosuch');
    expect(lines()).toHaveLength(3);
  });

  it('a 404 is answered, the span set aside: it ends a run of failures and starts none', async () => {
    const { telemetry, lines, attempt } = watched();
    const gone = new ApiError({ status: 404, body: { message: 'stream not found' }, request });
    await attempt(gone);
    const notFound = expect.objectContaining({
      level: 50,
      event: 'not_found',
      reason: 'HTTP 404',
    });
    expect(lines()).toEqual([notFound]);
    await attempt(new ApiError({ status: 500, body: {}, request }));
    await attempt(gone);
    expect(lines()).toEqual([
      notFound,
      expect.objectContaining({ level: 40, event: 'failing', reason: 'HTTP 500', failedCalls: 1 }),
      expect.objectContaining({ level: 30, event: 'answers_again', failedCalls: 1 }),
    ]);
    expect(telemetry.apiFailingSince('metrics')).toBeUndefined();
  });

  it('a 404 at every pass (a deleted stream, a wrong path) is one error line per 10 minutes', async () => {
    const { clock, lines, attempt } = watched();
    const gone = new ApiError({ status: 404, body: { message: 'stream not found' }, request });
    for (let i = 0; i < 10; i++) {
      await attempt(gone);
      clock.advance(59_000);
    }
    expect(lines()).toHaveLength(1);
    clock.advance(NOT_FOUND_LINE_EVERY_MS);
    await attempt(gone);
    expect(lines()).toHaveLength(2);
    expect(lines()[1]).toMatchObject({ level: 50, api: 'metrics', reason: 'HTTP 404' });
  });

  it('a 5xx or a reset is a warning; a 429 is not a failure of the API; calls and 429s are counted', async () => {
    const { watch, lines, attempt } = watched();
    await attempt(new ApiError({ status: 429, body: {}, request, retryAfterSec: 1 }));
    expect(lines()).toEqual([]);
    await attempt(new ApiError({ status: 503, body: {}, request }));
    expect(lines()).toEqual([expect.objectContaining({ level: 40, event: 'failing', reason: 'HTTP 503' })]);
    await attempt({ status: 200 });
    await attempt(new NetworkError(request, 'ECONNRESET'));
    expect(lines()[2]).toMatchObject({ level: 40, event: 'failing', reason: 'ECONNRESET' });
    expect(watch.total()).toEqual({ calls: 4, quotaRejections: 1, failures: 3 });
    expect(watch.tally('metrics')).toEqual(watch.total());
    expect(watch.tally('dvr')).toEqual({ calls: 0, quotaRejections: 0, failures: 0 });
  });
});
