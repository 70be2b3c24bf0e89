/**
 * The 404 line under a hostile load: 5,000 resources of two APIs answering 404 at once, with a token in each URL
 * (a base URL or a stream name that carries it). One error line per API per NOT_FOUND_LINE_EVERY_MS, each API on its
 * own, and never the token.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { classify } from '../../src/failure.js';
import { ApiError } from '../../src/http/errors.js';
import { describeError } from '../../src/limit/outcome.js';
import { clearSecrets, registerSecret } from '../../src/secrets.js';
import type { ApiName } from '../../src/spec/apis.js';
import { ApiWatch, NOT_FOUND_LINE_EVERY_MS } from '../../src/telemetry/api-watch.js';
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { T0 } from '../helpers/fake-job.js';

const TOKEN = 'tok-0123456789abcdef';
afterEach(() => clearSecrets());

describe('5,000 resources answering 404 with a token in their URL', () => {
  it('one line per API every 10 minutes, each with its API, none with the token', () => {
    registerSecret(TOKEN);
    const clock = new ManualClock(T0);
    const { log, text } = capturedLogger();
    const watch = new ApiWatch(log, clock, new Telemetry({ clock }));
    const storm = () => {
      for (let i = 0; i < 5000; i++) {
        const api: ApiName = i % 2 === 0 ? 'metrics' : 'streamstat';
        const url = `http://${TOKEN}@cdn.invalid/${TOKEN}/app/${api}/v1/?stream=s${i}&token=${TOKEN}`;
        const err = new ApiError({
          status: 404,
          body: { message: `no stream s${i}` },
          request: { api, method: 'GET', url },
        });
        watch.observe({ type: 'call', api, attempt: 1, ...describeError(err), error: err, failure: classify(err) });
        clock.advance(100);
      }
    };
    const lines = () =>
      text()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { level: number; api: string; reason: string });
    storm(); // 500 s: within the first 10 minutes
    expect(lines().map((l) => [l.level, l.api, l.reason])).toEqual([
      [50, 'metrics', 'HTTP 404'],
      [50, 'streamstat', 'HTTP 404'],
    ]);
    clock.advance(NOT_FOUND_LINE_EVERY_MS);
    storm();
    expect(lines().map((l) => l.api)).toEqual(['metrics', 'streamstat', 'metrics', 'streamstat']);
    expect(text()).not.toContain(TOKEN);
    expect(text()).not.toContain(encodeURIComponent(TOKEN));
  });
});
