/** A wrong `api.baseUrl` is refused with what is likely wrong and what the value should look like. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/loader.js';
import { NetworkError } from '../../src/http/errors.js';
import { problemsOf as problemsOfCheck } from '../helpers/config-error.js';

const config = (baseUrl: string) => ({
  api: { baseUrl, token: 'base-url-token' },
  accounts: ['acme'],
  sink: { type: 'file', path: '-' },
});
const problemsOf = (baseUrl: string) => problemsOfCheck(() => parseConfig(config(baseUrl), {}));

describe('api.baseUrl', () => {
  it('without a scheme: the URL with one', () => {
    expect(problemsOf('api.cdn.example')).toEqual([
      'api.baseUrl: "api.cdn.example" has no scheme: write https://api.cdn.example (http://api.cdn.example for a ' +
        'server without TLS)',
    ]);
  });

  it('with /app (or an endpoint) in its path: the base the collector adds /app/… to', () => {
    for (const url of ['https://api.cdn.example/app', 'https://api.cdn.example/app/metrics/v1/']) {
      expect(problemsOf(url)).toEqual([
        `api.baseUrl: "${url}" has /app in its path, which the collector adds to every path itself ` +
          '(…/app/app/metrics/v1/ answers 404): write https://api.cdn.example',
      ]);
    }
    expect(problemsOf('https://proxy.example/cdn/app/')[0]).toMatch(/: write https:\/\/proxy\.example\/cdn$/);
  });

  it('a path prefix of a proxy and a plain base are fine', () => {
    expect(parseConfig(config('https://proxy.example/cdn'), {}).api.baseUrl).toBe('https://proxy.example/cdn');
    expect(parseConfig(config('http://127.0.0.1:8080'), {}).api.baseUrl).toBe('http://127.0.0.1:8080');
  });

  it('the password of a URL is not shown', () => {
    expect(problemsOf('https://ops:hunter2secret@api.cdn.example/app').join('\n')).not.toContain('hunter2secret');
  });

  it('https:// to a server that speaks plain http: the failure says to use http://', () => {
    const request = { api: 'metrics' as const, method: 'GET', url: 'https://127.0.0.1:8080/app/metrics/v1/' };
    expect(new NetworkError(request, 'ERR_SSL_WRONG_VERSION_NUMBER').message).toMatch(
      /ERR_SSL_WRONG_VERSION_NUMBER \(an https:\/\/ URL to a server that speaks plain http: .* with http:\/\/\)$/,
    );
  });
});
