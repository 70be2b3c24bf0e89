import { describe, expect, it } from 'vitest';
import { LoginError, TokenFileError } from '../../src/auth/errors.js';
import { CollectorError, ParameterError } from '../../src/errors.js';
import {
  classify,
  FAILURE,
  type Failure,
  isRetryable,
  isSpanFault,
  SPAN_FAULT,
  sinkStatusClass,
} from '../../src/failure.js';
import * as http from '../../src/http/errors.js';
import { LimiterClosedError, LimiterDeadlineError } from '../../src/limit/errors.js';
import { SinkError } from '../../src/sink/errors.js';
import type { ApiName } from '../../src/spec/apis.js';

const request = (api: ApiName = 'metrics') => ({ api, method: 'GET', url: 'http://cdn.invalid/x' });
const apiError = (status: number, body: unknown = {}, api: ApiName = 'metrics', retryAfterSec?: number) =>
  new http.ApiError({ status, body, request: request(api), retryAfterSec });

/** The one classification of failures (src/failure.ts): what each error asks of the caller, and the wait. */
describe('classify', () => {
  it('an API status: 429 quota, 5xx transient, 401/403 token, another 4xx the span (404: an operator too)', () => {
    expect(classify(apiError(429))).toEqual({ class: 'quota', operator: false });
    expect(classify(apiError(500))).toEqual({ class: 'transient', operator: false });
    expect(classify(apiError(504))).toEqual({ class: 'transient', operator: false });
    expect(classify(apiError(400))).toEqual({ class: 'span', operator: false });
    expect(classify(apiError(404))).toEqual({ class: 'span', operator: true });
    expect(classify(apiError(422))).toEqual({ class: 'span', operator: false });
    expect(classify(apiError(401))).toMatchObject({ class: 'token', operator: true });
    expect(classify(apiError(403))).toMatchObject({ class: 'token', operator: true });
    expect(classify(apiError(304))).toEqual({ class: 'final', operator: false });
  });

  it('the wait a usable Retry-After asks for, uncapped; a negative or non-finite one is absent', () => {
    expect(classify(apiError(429, {}, 'statistic', 8))).toEqual({ class: 'quota', operator: false, waitMs: 8000 });
    expect(classify(apiError(503, {}, 'dvr', 1e9)).waitMs).toBe(1e12);
    expect(classify(apiError(429, {}, 'dvr', -5)).waitMs).toBeUndefined();
    expect(classify(apiError(429, {}, 'dvr', Number.NaN)).waitMs).toBeUndefined();
  });

  it('a refusal per API, from the text its spec documents', () => {
    const refusal = (api: ApiName, status: number, description?: string) =>
      classify(apiError(status, description === undefined ? {} : { description }, api)).refusal;
    expect(refusal('dvr', 403, 'Token is expired')).toBe('token');
    expect(refusal('metrics', 403, 'Invalid or missing CDN-AUTH-TOKEN')).toBe('token');
    expect(refusal('metrics', 403)).toBe('possible'); // metrics documents no text: it may be the token
    expect(refusal('statistic', 401, 'token is invalid')).toBe('token');
    expect(refusal('streamstat', 401, 'no accounts available')).toBeUndefined(); // the accounts: no renewal cures it
    expect(refusal('statistic', 401, 'account')).toBeUndefined();
    expect(refusal('statistic', 401, 'something else')).toBe('possible');
    expect(refusal('dvr', 404, 'Token is expired')).toBeUndefined();
  });

  it('the network: retried; a reset is transient, no server at the address needs an operator', () => {
    for (const code of ['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET']) {
      expect(classify(new http.NetworkError(request(), code))).toEqual({ class: 'transient', operator: false });
    }
    for (const code of ['ENOTFOUND', 'ECONNREFUSED', undefined]) {
      expect(classify(new http.NetworkError(request(), code))).toEqual({ class: 'transient', operator: true });
    }
    expect(classify(new http.TimeoutError(request(), 1000))).toEqual({ class: 'transient', operator: false });
  });

  it('a body not JSON or a corrupt stream: transient; not the schema, over the cap, endless paging: span', () => {
    expect(classify(new http.ResponseFormatError(request(), 'x', '<html>', 'not-json')).class).toBe('transient');
    expect(classify(new http.ResponseFormatError(request(), 'x', '{}', 'schema')).class).toBe('span');
    expect(classify(new http.ContentEncodingError('gzip', 'corrupt', 'cut off')).class).toBe('transient');
    expect(classify(new http.ContentEncodingError('zstd', 'unsupported', 'unknown')).class).toBe('final');
    expect(classify(new http.BodyTooLargeError(request(), 200, 1024, 4096, 0)).class).toBe('span');
    expect(classify(new http.PagingError('statistic', '/x', 'repeated', 3, 'same page')).class).toBe('span');
    expect(classify(new ParameterError('account', 'empty')).class).toBe('span');
  });

  it('the login and the token file are the token; the login asks for its backoff', () => {
    const refused = new LoginError('http://x/token', 'refused', 401, 30_000);
    expect(classify(refused)).toEqual({ class: 'token', operator: false, waitMs: 30_000 });
    const down = new LoginError('http://x/token', 'down', undefined, undefined);
    expect(classify(down)).toEqual({ class: 'token', operator: false });
    expect(classify(new TokenFileError('/run/token', 'empty')).class).toBe('token');
  });

  it('the limiter: closed is final, no slot within the deadline transient; anything unknown is final', () => {
    expect(classify(new LimiterClosedError('dvr')).class).toBe('final');
    expect(classify(new LimiterDeadlineError('dvr', 1000)).class).toBe('transient');
    expect(classify(new Error('bug'))).toEqual({ class: 'final', operator: false });
    expect(classify('thrown text')).toEqual({ class: 'final', operator: false });
  });

  it('a sink by status: refused content is dead-lettered (span), 408/429/5xx retried, 401/403/404 an operator', () => {
    const sink = (status: number) => classify(new SinkError('influx-v1', status, false, `HTTP ${status}`));
    expect([400, 413, 422].map(sinkStatusClass)).toEqual(['span', 'span', 'span']);
    expect(sink(429)).toEqual({ class: 'quota', operator: false });
    expect(sink(408)).toEqual({ class: 'transient', operator: false });
    expect(sink(503)).toEqual({ class: 'transient', operator: false });
    expect(sink(401)).toEqual({ class: 'token', operator: true });
    expect(sink(404)).toEqual({ class: 'final', operator: true });
    const refused = new SinkError('influx-v1', undefined, true, 'failed', { cause: { code: 'ECONNREFUSED' } });
    expect(classify(refused)).toEqual({ class: 'transient', operator: true });
    const full = new SinkError('file', undefined, true, 'write /x: ENOSPC');
    expect(classify(full)).toEqual({ class: 'transient', operator: false });
    const closed = new SinkError('file', undefined, false, 'write after close');
    expect(classify(closed)).toEqual({ class: 'final', operator: true });
  });

  it('an error class declares its failure; failure.ts needs no row for it, and a subclass inherits it', () => {
    class ToyError extends CollectorError {
      [FAILURE](): Failure {
        return SPAN_FAULT;
      }
    }
    class ToyChildError extends ToyError {}
    expect(classify(new ToyError('x'))).toEqual({ class: 'span', operator: false });
    expect(classify(new ToyChildError('x'))).toEqual({ class: 'span', operator: false });
    expect(classify({ [FAILURE]: 'not a method' })).toEqual({ class: 'final', operator: false });
  });

  it('isRetryable and isSpanFault read the class', () => {
    const retried = [apiError(429), apiError(502), new http.TimeoutError(request(), 1)];
    expect(retried.map(isRetryable)).toEqual([true, true, true]);
    expect([apiError(401), apiError(400), new Error('x')].map(isRetryable)).toEqual([false, false, false]);
    expect([apiError(400), apiError(401), apiError(429)].map(isSpanFault)).toEqual([true, false, false]);
  });
});
