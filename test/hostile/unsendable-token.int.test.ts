/**
 * A token no HTTP header can carry (a line break, a non-ASCII letter): undici refuses every call with it before
 * sending (UND_ERR_INVALID_ARG), and after 16 refusals its pool stops settling calls at all — a pass then never ends,
 * even past its deadline. Such a token is a refused login (or an unusable token file, or a config error), its calls
 * are never made, and a call the HTTP layer does not settle ends at its deadline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LoginError } from '../../src/auth/errors.js';
import { LoginTokenProvider } from '../../src/auth/login.js';
import { parseLoginAnswer } from '../../src/auth/login-request.js';
import { ManualClock } from '../../src/clock.js';
import { classify } from '../../src/failure.js';
import { HttpClient } from '../../src/http/client.js';
import { NetworkError, type RequestInfo } from '../../src/http/errors.js';
import type { Dispatcher } from '../../src/http/undici.js';
import { SinkError } from '../../src/sink/errors.js';
import { LOGIN_PATH } from '../../src/spec/login.js';
import { json, loopbackServer, type LoopbackServer } from '../helpers/loopback.js';

const BROKEN_TOKENS = ['cdn1_first-half\nsecond-half', 'cdn1_tökenvalue', 'cdn1_tab\there'];

/** A login that answers 200 with `token`, and an API that answers every call with an empty list. */
let server: LoopbackServer;
let token = BROKEN_TOKENS[0]!;
beforeAll(async () => {
  server = await loopbackServer((req, res) => {
    if (req.url === LOGIN_PATH) return json(res, { status: 200, token, lifetime: 21_599_000 });
    json(res, []);
  });
});
afterAll(() => server.close());
const apiCalls = () => server.requests.filter((r) => r.url !== LOGIN_PATH).length;
const logins = () => server.requests.filter((r) => r.url === LOGIN_PATH).length;
const metricsCall = (http: HttpClient) =>
  http.request({ api: 'metrics', method: 'GET', path: '/app/metrics/v1/', schema: z.unknown() });

describe('a login that answers a token no header can carry', () => {
  it.each(BROKEN_TOKENS)('is a refused login: %j', (broken) => {
    const answer = parseLoginAnswer(200, JSON.stringify({ status: 200, token: broken, lifetime: 21_599_000 }));
    expect(answer).toMatchObject({ ok: false, status: 200 });
    expect(JSON.stringify(answer)).not.toContain('second-half');
  });

  it('no call is sent with it; the next login comes after the backoff', async () => {
    token = BROKEN_TOKENS[0]!;
    const clock = new ManualClock(Date.UTC(2026, 10, 20, 12));
    const tokens = new LoginTokenProvider({
      baseUrl: server.url,
      username: 'ops',
      password: 'correct horse battery',
      bodyFormat: 'form',
      timeoutMs: 5_000,
      clock,
      backoff: { baseMs: 5_000, capMs: 60_000 },
    });
    const http = new HttpClient({ baseUrl: server.url, token: tokens, clock });
    const before = { logins: logins(), calls: apiCalls() };
    for (let i = 0; i < 20; i++) await expect(metricsCall(http)).rejects.toBeInstanceOf(LoginError);
    expect(logins() - before.logins, 'one login until its backoff has passed').toBe(1);
    clock.advance(5 * 60_000);
    await expect(metricsCall(http)).rejects.toBeInstanceOf(LoginError);
    expect(logins() - before.logins).toBe(2);
    expect(apiCalls() - before.calls, 'no call sent').toBe(0);
    await http.close();
  });
});

describe('the HTTP client', () => {
  it('refuses a fixed token no header can carry before sending, however many calls: each settles at once', async () => {
    const http = new HttpClient({ baseUrl: server.url, token: 'cdn1_first-half\nsecond-half' });
    const before = apiCalls();
    for (let i = 0; i < 20; i++) {
      const err = await metricsCall(http).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'CDN_ERR_REQUEST_ARGUMENT' });
      expect(classify(err)).toEqual({ class: 'final', operator: true });
      expect(String((err as Error).message)).not.toContain('second-half');
    }
    expect(apiCalls() - before).toBe(0);
    await http.close();
  });

  it('ends a call the HTTP layer never settles at its deadline', async () => {
    // A pool that takes the call and never answers, nor reacts to an abort: what undici's does after 16 refusals.
    const silent = { dispatch: () => true, close: async () => {}, destroy: async () => {} } as unknown as Dispatcher;
    const http = new HttpClient({ baseUrl: server.url, token: 'cdn1_valid-token', dispatcher: silent, timeoutMs: 200 });
    await expect(metricsCall(http)).rejects.toMatchObject({ code: 'CDN_ERR_TIMEOUT' });
  });
});

describe('argument errors of the HTTP layer', () => {
  const request: RequestInfo = { api: 'metrics', method: 'GET', url: 'http://x/app/metrics/v1/' };

  it('are final and an operator’s, not network weather, for an API call and a database write alike', () => {
    expect(classify(new NetworkError(request, 'UND_ERR_INVALID_ARG'))).toEqual({ class: 'final', operator: true });
    const cause = Object.assign(new Error('invalid header'), { code: 'UND_ERR_INVALID_ARG' });
    expect(classify(new SinkError('influx-v2', undefined, true, 'write failed', { cause }))).toEqual({
      class: 'final',
      operator: true,
    });
    expect(classify(new NetworkError(request, 'ECONNRESET'))).toEqual({ class: 'transient', operator: false });
  });
});
