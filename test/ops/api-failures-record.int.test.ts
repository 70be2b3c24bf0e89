import type { ServerResponse } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError } from '../../src/http/errors.js';
import { evaluateHealth } from '../../src/telemetry/health.js';
import { capturedRuntime, configIn } from '../helpers/collector.js';
import { json, loopbackServer } from '../helpers/loopback.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Answers one request of the API: a status (with a Retry-After of a second on a 429). */
type Reply = (status: number) => void;

/**
 * The metrics API's run of failures is one record: /healthz and the log's lines read it, so they name the same start
 * and count, and the call that ends the run ends it for both. The API is a loopback server each of whose requests
 * waits until the test answers it, so the test looks at both while a call is in flight.
 */
describe('one record of an API failing', () => {
  it('the log and /healthz name the same start and count; the call the API serves ends both', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'api-record-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const arrived: Reply[] = [];
    const awaiting: Array<(reply: Reply) => void> = [];
    const api = await loopbackServer(
      (req, res) =>
        new Promise<void>((done) => {
          req.resume().on('end', () => {
            const reply: Reply = (status) => {
              answer(res, status);
              done();
            };
            const waiter = awaiting.shift();
            if (waiter) waiter(reply);
            else arrived.push(reply);
          });
        }),
    );
    /** The next request the API received (waits for it). */
    const nextRequest = (): Promise<Reply> =>
      arrived.length > 0 ? Promise.resolve(arrived.shift()!) : new Promise((resolve) => awaiting.push(resolve));

    const config = configIn(dir, {
      api: { baseUrl: api.url, token: 'api-record-token' },
      sink: { type: 'file', path: join(dir, 'points.lp') },
      http: { apiFailingAfter: '1m' },
    });
    const { rt, clock, logLines } = await capturedRuntime(config);
    cleanups.push(() => rt.close());
    // First: a request left unanswered (a failed assertion) would hold the runtime's close until its timeout.
    cleanups.push(() => api.close());
    // When each attempt ended, on the runtime's clock; the limiter's waits before a retry pass at once.
    const calls: Array<{ status: number | undefined; at: number }> = [];
    rt.onLimiterEvent((e) => {
      if (e.type === 'call') calls.push({ status: e.status, at: clock.now() });
      if (e.type === 'retry') clock.advance(e.waitMs ?? 0);
    });
    const http = rt.http.withGate(rt.limiters.gate('live'));
    const get = () => http.request({ api: 'metrics', method: 'GET', path: '/app/metrics/v1/', schema: z.unknown() });
    const apiLines = () => logLines().filter((l) => l.level >= 30 && l.api === 'metrics');
    const health = () => evaluateHealth(rt.telemetry, { maxLagMs: 3_600_000 });
    const iso = (ms: number) => new Date(ms).toISOString();
    const seconds = (ms: number) => Math.round(ms / 1000);

    // A quota wait, then three failures: the run begins at the first failure, for the log and /healthz alike.
    const first = get().catch((err: unknown) => err);
    (await nextRequest())(429);
    (await nextRequest())(500);
    (await nextRequest())(500);
    (await nextRequest())(500);
    const recovery = await nextRequest(); // the fourth retry is in flight: three failures so far
    const failedAt = calls.find((c) => c.status === 500)!.at;
    expect(calls.map((c) => c.status)).toEqual([429, 500, 500, 500]);
    expect(apiLines()).toEqual([
      expect.objectContaining({
        level: 40,
        event: 'failing',
        reason: 'HTTP 500',
        failedCalls: 1,
        since: iso(failedAt),
      }),
    ]);
    clock.advance(60_000);
    const failingFor = `every call failed for ${seconds(clock.now() - failedAt)} s`;
    expect(health().reasons).toEqual({ 'api:metrics': `${failingFor} (3 calls since ${iso(failedAt)}, last: 500)` });
    expect(rt.telemetry.apiFailingSince('metrics')).toBe(failedAt);

    // A 404 is the span's fault, an answer of the API: it ends the run for /healthz and the log at the same call (and
    // has a line of its own, outside the run, naming what to check).
    recovery(404);
    expect(await first).toBeInstanceOf(ApiError);
    expect(apiLines().slice(1)).toEqual([
      expect.objectContaining({
        level: 30,
        event: 'answers_again',
        failedCalls: 3,
        sinceMs: clock.now() - failedAt,
        since: iso(failedAt),
      }),
      expect.objectContaining({
        level: 50,
        event: 'not_found',
        reason: 'HTTP 404',
      }),
    ]);
    expect(health().status).toBe('ok');
    expect(rt.telemetry.apiFailingSince('metrics')).toBeUndefined();

    // The next failure starts a new run, told at once; the call served after it ends that one.
    clock.advance(10_000);
    const second = get();
    (await nextRequest())(500);
    const served = await nextRequest();
    const againAt = calls.at(-1)!.at;
    expect(rt.telemetry.apiFailingSince('metrics')).toBe(againAt);
    expect(apiLines().slice(3)).toEqual([
      expect.objectContaining({
        level: 40,
        event: 'failing',
        reason: 'HTTP 500',
        failedCalls: 1,
        since: iso(againAt),
      }),
    ]);
    served(200);
    await second;
    expect(apiLines().slice(4)).toEqual([
      expect.objectContaining({ event: 'answers_again', failedCalls: 1, since: iso(againAt) }),
    ]);
    expect(rt.telemetry.apiFailingSince('metrics')).toBeUndefined();
    expect(apiLines()).toHaveLength(5);
  });
});

function answer(res: ServerResponse, status: number): void {
  if (status === 200) json(res, {});
  else json(res, { error: `answered ${status}` }, status, status === 429 ? { 'retry-after': '1' } : {});
}
