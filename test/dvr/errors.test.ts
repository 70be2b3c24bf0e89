import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../src/http/client.js';
import { ApiError } from '../../src/http/errors.js';
import { SPECIAL_TOKENS } from '../../src/sim/auth.js';
import { DvrClient } from '../../src/sources/dvr/client.js';
import { rawRequest } from '../helpers/raw-request.js';
import { rangesOf, startDvrFixture, T0, type DvrFixture } from './helpers.js';
import { APIS } from '../../src/spec/apis.js';
import { simClient } from '../helpers/in-process.js';

let f: DvrFixture;
beforeAll(async () => {
  f = await startDvrFixture({ settings: { failingDvrNodes: ['node-03'] } });
});
afterAll(() => f.close());

async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

/** A client with another token; closed by the caller. */
function clientWith(token: string): { dvr: DvrClient; http: HttpClient } {
  const http = simClient(f.sim, { token });
  return { dvr: new DvrClient(http), http };
}

/** A raw call, for what the client refuses to send. */
function raw(method: string, path: string, body?: unknown) {
  return rawRequest(f.sim, APIS.dvr.prefix, path, {}, { method, body });
}

describe('failed_hosts', () => {
  it('a range deletion on * fails with 500 naming the failing node, while the other nodes are changed', async () => {
    const node3 = await rangesOf(f, 'acme', 'live/main', 'node-03');
    const err = await apiError(f.dvr.deleteRange('acme', 'live/main', { host: '*', fromTs: T0 - 30, toTs: T0 }));
    expect(err.status).toBe(500);
    expect(err.failedHosts).toEqual(['node-03']);
    expect(err.apiStatus).toBe('Internal Server Error');
    expect(err.description).toBeTruthy();
    expect(err.message).toContain('node-03');
    const last1 = (await rangesOf(f, 'acme', 'live/main', 'node-01')).at(-1)!;
    expect(last1.from + last1.duration).toBe(T0 - 30);
    expect(await rangesOf(f, 'acme', 'live/main', 'node-03')).toEqual(node3);
  });

  it('delete-all addressed to the failing node alone fails and keeps its recording', async () => {
    const node3 = await rangesOf(f, 'globex', 'live/main', 'node-03');
    const err = await apiError(f.dvr.deleteAll('globex', 'live/main', { host: 'node-03' }));
    expect(err.failedHosts).toEqual(['node-03']);
    expect(await rangesOf(f, 'globex', 'live/main', 'node-03')).toEqual(node3);
  });
});

describe('authentication', () => {
  it.each([
    ['an expired token', SPECIAL_TOKENS.expired, 'Token expired'],
    ['an unknown token', 'not-a-token', 'Invalid or missing CDN-AUTH-TOKEN'],
  ])('%s is Forbidden (403) and the token never shows in the error', async (_label, token, description) => {
    const c = clientWith(token);
    try {
      const err = await apiError(c.dvr.get('acme', 'live/main'));
      expect(err.status).toBe(403);
      expect(err.apiStatus).toBe('Forbidden');
      expect(err.description).toBe(description);
      expect(`${err.message} ${JSON.stringify(err)}`).not.toContain(token);
    } finally {
      await c.http.close();
    }
  });

  it('a token without the account is Forbidden (403)', async () => {
    f.sim.addToken('globex-only-token', { accounts: ['globex'] });
    const c = clientWith('globex-only-token');
    try {
      expect((await apiError(c.dvr.get('acme', 'live/main'))).status).toBe(403);
      expect((await c.dvr.get('globex', 'live/main')).status).toBe('Completed');
    } finally {
      await c.http.close();
    }
  });
});

describe('not found, bad requests, methods (choices where the spec is silent)', () => {
  it('an unknown account or stream is 404 Not Found', async () => {
    for (const [account, stream] of [
      ['nobody', 'live/main'],
      ['acme', 'no such stream'],
      ['acme', 'live'],
    ] as const) {
      const err = await apiError(f.dvr.get(account, stream));
      expect([err.status, err.apiStatus]).toEqual([404, 'Not Found']);
    }
    expect((await raw('GET', '/acme/live/main')).status).toBe(404);
  });

  it('an encoded slash addresses the same stream', async () => {
    const res = await raw('GET', '/acme/streams/live%2Fmain');
    expect(res.status).toBe(200);
    expect(res.body.stream_name).toBe('live/main');
  });

  it.each([
    ['no body', undefined, 'body'],
    ['missing host', { from_ts: 1, duration_sec: 1 }, 'host'],
    ['unknown host', { host: 'node-99', from_ts: 1, duration_sec: 1 }, 'host'],
    ['missing from_ts', { host: '*', duration_sec: 1 }, 'from_ts'],
    ['fractional from_ts', { host: '*', from_ts: 1.5, duration_sec: 1 }, 'from_ts'],
    ['neither duration_sec nor to_ts', { host: '*', from_ts: 1 }, 'duration_sec'],
    ['duration_sec 0', { host: '*', from_ts: 1, duration_sec: 0 }, 'duration_sec'],
    ['to_ts not after from_ts', { host: '*', from_ts: 5, to_ts: 5 }, 'to_ts'],
    ['all not boolean', { host: '*', all: 'yes' }, 'all'],
    ['all with a range', { host: '*', all: true, from_ts: 1 }, 'from_ts'],
  ])('%s is 400 Bad Request naming the field', async (_label, body, field) => {
    const res = await raw('DELETE', '/acme/streams/live/main', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 'Bad Request' });
    expect(String(res.body.description)).toMatch(new RegExp(`^${field}:`));
  });

  it('both duration_sec and to_ts: to_ts wins when they disagree', async () => {
    const sentinel = await rangesOf(f, 'globex', 'news', 'node-01');
    const last = sentinel.at(-1)!;
    const res = await raw('DELETE', '/globex/streams/news', {
      host: 'node-01',
      from_ts: last.from,
      duration_sec: 1,
      to_ts: last.from + 50,
    });
    expect(res.body).toEqual({
      status: 'Completed',
      stream_name: 'news',
      host: 'node-01',
      from_ts: last.from,
      duration_sec: 1,
      to_ts: last.from + 50,
    });
    expect((await rangesOf(f, 'globex', 'news', 'node-01')).at(-1)).toEqual({
      from: last.from + 50,
      duration: last.duration - 50,
    });
  });

  it('other methods are 405 with Allow', async () => {
    const res = await rawRequest(f.sim, APIS.dvr.prefix, '/acme/streams/live/main', {}, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, DELETE');
    expect(res.body).toMatchObject({ status: 'Method Not Allowed' });
  });
});
