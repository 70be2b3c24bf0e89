import { afterAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { ParameterError } from '../../src/errors.js';
import { DvrClient } from '../../src/sources/dvr/client.js';
import type { DvrDeleteRange } from '../../src/sources/dvr/params.js';
import { dvrStreamPath } from '../../src/sources/dvr/path.js';

// Nothing listens on port 9 (discard): a request that slipped through would fail with a NetworkError instead.
const http = new HttpClient({ baseUrl: 'http://127.0.0.1:9', token: 'secret-token', timeoutMs: 2000 });
const dvr = new DvrClient(http);
afterAll(() => http.close());

async function parameterOf(call: () => Promise<unknown>): Promise<string> {
  const err = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ParameterError);
  expect((err as ParameterError).message).toMatch(new RegExp(`^${(err as ParameterError).parameter}: `));
  return (err as ParameterError).parameter;
}

const ok: DvrDeleteRange = { host: 'node-01', fromTs: 1000, durationSec: 10 };

describe('checks before any request', () => {
  it.each([
    ['empty account', () => dvr.get('', 'live/main'), 'account'],
    ['empty stream', () => dvr.get('acme', ''), 'stream'],
    ['a ".." segment in the stream', () => dvr.get('acme', 'live/../admin'), 'stream'],
    ['a "." segment in the stream', () => dvr.deleteAll('acme', './x', { host: '*' }), 'stream'],
    ['empty host (range)', () => dvr.deleteRange('acme', 's', { ...ok, host: '' }), 'host'],
    ['empty host (all)', () => dvr.deleteAll('acme', 's', { host: '' }), 'host'],
    ['negative from_ts', () => dvr.deleteRange('acme', 's', { ...ok, fromTs: -1 }), 'from_ts'],
    ['fractional from_ts', () => dvr.deleteRange('acme', 's', { ...ok, fromTs: 1.5 }), 'from_ts'],
    ['NaN from_ts', () => dvr.deleteRange('acme', 's', { ...ok, fromTs: Number.NaN }), 'from_ts'],
    ['neither duration_sec nor to_ts', () => dvr.deleteRange('acme', 's', { host: '*', fromTs: 1 }), 'duration_sec'],
    ['both duration_sec and to_ts', () => dvr.deleteRange('acme', 's', { ...ok, toTs: 2000 }), 'duration_sec'],
    ['duration_sec 0', () => dvr.deleteRange('acme', 's', { ...ok, durationSec: 0 }), 'duration_sec'],
    ['fractional duration_sec', () => dvr.deleteRange('acme', 's', { ...ok, durationSec: 2.5 }), 'duration_sec'],
    ['to_ts equal to from_ts', () => dvr.deleteRange('acme', 's', { host: '*', fromTs: 5, toTs: 5 }), 'to_ts'],
    ['to_ts before from_ts', () => dvr.deleteRange('acme', 's', { host: '*', fromTs: 5, toTs: 4 }), 'to_ts'],
    ['fractional to_ts', () => dvr.deleteRange('acme', 's', { host: '*', fromTs: 5, toTs: 9.5 }), 'to_ts'],
  ])('%s → ParameterError(%s)', async (_label, call, parameter) => {
    expect(await parameterOf(call)).toBe(parameter);
  });
});

describe('path', () => {
  it('keeps "/" in the stream literal and percent-encodes every other reserved character per segment', () => {
    expect(dvrStreamPath('acme', 'live/main')).toBe('/app/dvr-net/v1/acme/streams/live/main');
    expect(dvrStreamPath('acme', 'sport hd')).toBe('/app/dvr-net/v1/acme/streams/sport%20hd');
    expect(dvrStreamPath('a b', 'x?y#z/%/Видео')).toBe(
      '/app/dvr-net/v1/a%20b/streams/x%3Fy%23z/%25/%D0%92%D0%B8%D0%B4%D0%B5%D0%BE',
    );
  });
});
