import { describe, expect, it } from 'vitest';
import { envFields, parseListen } from '../../src/config/env.js';
import { parseConfig } from '../../src/config/loader.js';
import { problemsOf as problemsOfCheck } from '../helpers/config-error.js';

const minimal = {
  api: { baseUrl: 'http://127.0.0.1:1', token: 'secret-token-123' },
  accounts: ['acme'],
  sink: { type: 'file', path: '-' },
};

const problemsOf = (raw: unknown, env: Record<string, string> = {}) => problemsOfCheck(() => parseConfig(raw, env));

/** Everything a daemon needs, from the environment alone (no file). */
const ENV_ONLY = {
  CDN_BASE_URL: 'http://127.0.0.1:1',
  CDN_TOKEN: 'env-token-123456',
  CDN_ACCOUNTS: 'acme, globex',
  INFLUX_URL: 'http://127.0.0.1:8086',
  INFLUX_DATABASE: 'cdn',
  LOG_LEVEL: 'debug',
  LOG_FORMAT: 'json',
  CDN_LISTEN: '0.0.0.0:9464',
};

describe('configuration from the environment alone', () => {
  it('every required field can come from a variable', () => {
    const c = parseConfig({}, ENV_ONLY);
    expect(c.api).toMatchObject({ baseUrl: 'http://127.0.0.1:1', token: 'env-token-123456' });
    expect(c.accounts).toEqual(['acme', 'globex']);
    expect(c.sink).toMatchObject({ type: 'influx-v1', url: 'http://127.0.0.1:8086', database: 'cdn' });
    expect(c.log).toEqual({ level: 'debug', format: 'json', progressEvery: 15_000 });
    expect(c.http).toMatchObject({ host: '0.0.0.0', port: 9464 });
  });

  it('the environment overrides the file, field by field', () => {
    const c = parseConfig(
      { ...minimal, log: { level: 'error', format: 'pretty' }, http: { host: '127.0.0.1', port: 1 } },
      { LOG_LEVEL: 'warn', CDN_LISTEN: ':9000' },
    );
    expect(c.log).toEqual({ level: 'warn', format: 'pretty', progressEvery: 15_000 });
    expect(c.http).toMatchObject({ host: '127.0.0.1', port: 9000 });
  });

  it.each([
    ['127.0.0.1:9464', { host: '127.0.0.1', port: 9464 }],
    ['[::]:9464', { host: '::', port: 9464 }],
    [':9464', { port: 9464 }],
    ['9464', { port: 9464 }],
    ['metrics.local:80', { host: 'metrics.local', port: 80 }],
  ])('CDN_LISTEN %s', (text, expected) => {
    expect(parseListen(text)).toEqual(expected);
  });

  it.each(['', 'host', 'host:', ':port', '1.2.3.4:9464:1', '[::1]'])('CDN_LISTEN %j is not an address', (text) => {
    expect(parseListen(text)).toBeUndefined();
  });

  it('knows which variable sets which field (the reference and the errors read this)', () => {
    const fields = envFields({ sink: { type: 'influx-v2' } });
    expect(fields.get('api.token')).toBe('CDN_TOKEN');
    expect(fields.get('sink.token')).toBe('INFLUX_TOKEN');
    expect(fields.get('sink.database')).toBeUndefined();
    expect(fields.get('log.level')).toBe('LOG_LEVEL');
    expect(fields.get('http.port')).toBe('CDN_LISTEN');
    expect(fields.get('http.host')).toBe('CDN_LISTEN');
  });
});

describe('configuration errors', () => {
  it('lists every problem at once, each naming the field and the variable that would set it', () => {
    expect(problemsOf({}, {})).toEqual([
      'api: required: an api section, ' +
        'or CDN_BASE_URL and CDN_TOKEN (or CDN_TOKEN_FILE, or CDN_USERNAME with CDN_PASSWORD)',
      'accounts: required (set CDN_ACCOUNTS)',
      'sink: required: a sink section, or INFLUX_URL with INFLUX_TOKEN, INFLUX_ORG, INFLUX_BUCKET (InfluxDB 2.x) or ' +
        'with INFLUX_DATABASE (InfluxDB 1.x)',
    ]);
    expect(problemsOf({ api: { token: 'secret-token-123' }, sink: { type: 'influx-v2' } })).toEqual([
      'api.baseUrl: required (set CDN_BASE_URL)',
      'accounts: required (set CDN_ACCOUNTS)',
      'sink.url: required (set INFLUX_URL)',
      'sink.token: required (set INFLUX_TOKEN)',
      'sink.org: required (set INFLUX_ORG)',
      'sink.bucket: required (set INFLUX_BUCKET)',
    ]);
  });

  it('one message carries them all, one per line', () => {
    expect(() => parseConfig({ ...minimal, accounts: undefined, api: { ...minimal.api, timeout: 30 } }, {})).toThrow(
      'config: 2 problems\n  api.timeout: 30 has no unit: write 30s (or ms, m, h, d)\n' +
        '  accounts: required (set CDN_ACCOUNTS)',
    );
  });

  it('a bare number as a duration says to write it with a unit, in a file or a quoted string', () => {
    expect(problemsOf({ ...minimal, api: { ...minimal.api, timeout: 30 } })).toEqual([
      'api.timeout: 30 has no unit: write 30s (or ms, m, h, d)',
    ]);
    expect(problemsOf({ ...minimal, jobs: { metrics: { delay: '120' } } })).toEqual([
      'jobs.metrics.delay: 120 has no unit: write 120s (or ms, m, h, d)',
    ]);
    expect(problemsOf({ ...minimal, state: { horizon: 'soon' } })).toEqual([
      'state.horizon: "soon" is not a positive duration (e.g. 30s, 10m, 1h, 7d)',
    ]);
  });

  it('a bad value from the environment names the variable it came from', () => {
    expect(problemsOf(minimal, { CDN_BASE_URL: 'not a url' })).toEqual([
      'api.baseUrl: "not a url" is not a URL (e.g. https://api.example.com) (from CDN_BASE_URL)',
    ]);
    expect(problemsOf(minimal, { LOG_FORMAT: 'xml' })[0]).toMatch(
      /^log\.format: .*json.*pretty.* \(from LOG_FORMAT\)$/,
    );
    expect(problemsOf(minimal, { CDN_LISTEN: 'everywhere' })).toEqual([
      'http.port: CDN_LISTEN "everywhere" must be host:port, e.g. 127.0.0.1:9464, [::]:9464 or :9464',
    ]);
    expect(problemsOf(minimal, { CDN_LISTEN: '127.0.0.1:70000' })[0]).toMatch(
      /^http\.port: .*65535 \(from CDN_LISTEN\)$/,
    );
  });

  it('a secret never appears in the messages', () => {
    const messages = problemsOf({ ...minimal, api: { ...minimal.api, baseUrl: 'x' }, accounts: [] }).join('\n');
    expect(messages).not.toContain('secret-token-123');
  });
});
