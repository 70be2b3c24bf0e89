import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ConfigError, loadConfigFile, parseConfig } from '../../src/config/loader.js';
import { fieldOf } from '../helpers/config-error.js';

const minimal = {
  api: { baseUrl: 'http://127.0.0.1:1', token: 'secret-token-123' },
  accounts: ['acme'],
  sink: { type: 'file', path: '-' },
};

describe('config schema', () => {
  it('fills documented defaults (quotas of the spec, 10-minute metrics windows, 1 h statistics lag)', () => {
    const c = parseConfig(minimal, {});
    expect(c.quotas.statistic).toEqual({ calls: 5, period: 60_000 });
    expect(c.quotas.streamstat).toEqual({ calls: 30, period: 60_000 });
    expect(c.jobs.metrics.window).toBe(600_000);
    expect(c.jobs.statistic.lag).toBe(3_600_000);
    expect(c.api.tokenPlacement).toBe('header');
    expect(c.output.retryFor).toBe(60_000);
    expect(parseConfig({ ...minimal, output: { retryFor: '5s' } }, {}).output.retryFor).toBe(5000);
  });

  it('puts the dead letters in state.dir unless output.deadLetterPath says where (as written: cwd-relative)', () => {
    const deadLetters = (raw: Record<string, unknown>) => parseConfig({ ...minimal, ...raw }, {}).output.deadLetterPath;
    expect(deadLetters({ state: { dir: '/var/lib/cdn' } })).toBe('/var/lib/cdn/dead-letters.jsonl');
    expect(deadLetters({ state: { dir: 'data/state' } })).toBe('data/state/dead-letters.jsonl');
    expect(deadLetters({})).toBe('state/dead-letters.jsonl');
    expect(deadLetters({ state: { dir: '/x' }, output: { deadLetterPath: 'out/dead.jsonl' } })).toBe('out/dead.jsonl');
  });

  it.each([
    [{ ...minimal, extra: 1 }, '(root)'],
    [{ ...minimal, api: { ...minimal.api, baseUrl: 'not a url' } }, 'api.baseUrl'],
    [{ ...minimal, quotas: { statistic: { calls: 0, period: '1m' } } }, 'quotas.statistic.calls'],
    [{ ...minimal, quotas: { statistic: { calls: 5, period: '-1m' } } }, 'quotas.statistic.period'],
    [{ ...minimal, jobs: { metrics: { window: 'ten' } } }, 'jobs.metrics.window'],
    [{ ...minimal, jobs: { statistic: { groupings: ['nope'] } } }, 'jobs.statistic.groupings.0'],
    [{ ...minimal, sink: { type: 'influx-v2', url: 'http://x' } }, 'sink.token'],
    [{ ...minimal, accounts: [] }, 'accounts'],
    [{ ...minimal, accounts: 'all' }, 'accounts'],
    [{ ...minimal, api: { ...minimal.api, serverMaxLimit: 0 } }, 'api.serverMaxLimit'],
    [{ ...minimal, api: { ...minimal.api, serverMaxLimit: 2.5 } }, 'api.serverMaxLimit'],
    [
      { ...minimal, sink: { type: 'influx-v1', url: 'http://db:8086', database: 'cdn', gzipMinBytes: -1 } },
      'sink.gzipMinBytes',
    ],
  ])('rejects bad input naming the field (%#)', (raw, field) => {
    expect(fieldOf(() => parseConfig(raw, {}))).toBe(field);
  });

  it('accounts: auto (file or CDN_ACCOUNTS=auto) discovers the accounts; a list stays a list', () => {
    expect(parseConfig({ ...minimal, accounts: 'auto' }, {}).accounts).toBe('auto');
    expect(parseConfig(minimal, { CDN_ACCOUNTS: 'auto' }).accounts).toBe('auto');
    expect(parseConfig(minimal, { CDN_ACCOUNTS: 'a, b' }).accounts).toEqual(['a', 'b']);
    expect(parseConfig(minimal, {}).jobs.statistic.discovery).toBe(3_600_000);
  });

  it('api.serverMaxLimit is unset (cap unknown) unless stated', () => {
    expect(parseConfig(minimal, {}).api.serverMaxLimit).toBeUndefined();
    expect(parseConfig({ ...minimal, api: { ...minimal.api, serverMaxLimit: 50 } }, {}).api.serverMaxLimit).toBe(50);
  });

  it('names an unknown key', () => {
    expect(() => parseConfig({ ...minimal, jobs: { metrics: { windw: '5m' } } }, {})).toThrow(/jobs\.metrics.*windw/);
  });

  it('takes secrets and the sink from the environment', () => {
    const { api, sink, ...rest } = minimal;
    const c = parseConfig(
      { ...rest, api: { baseUrl: api.baseUrl } },
      { CDN_TOKEN: 'from-env', INFLUX_URL: 'http://db:8086', INFLUX_TOKEN: 't', INFLUX_ORG: 'o', INFLUX_BUCKET: 'b' },
    );
    expect(c.api.token).toBe('from-env');
    expect(c.sink).toEqual({
      type: 'influx-v2',
      url: 'http://db:8086',
      token: 't',
      org: 'o',
      bucket: 'b',
      backslashes: 'verbatim',
      gzipLevel: 1,
      gzipMinBytes: 4096,
    });
    void sink;
  });

  it('INFLUX_DATABASE selects the v1 sink', () => {
    const { sink, ...rest } = minimal;
    void sink;
    const c = parseConfig(rest, { INFLUX_URL: 'http://db:8086', INFLUX_DATABASE: 'cdn', INFLUX_PASSWORD: 'p' });
    expect(c.sink).toMatchObject({ type: 'influx-v1', database: 'cdn', password: 'p' });
  });

  it('never puts the token into the error message', () => {
    try {
      parseConfig({ ...minimal, api: { ...minimal.api, baseUrl: 'bad' } }, {});
    } catch (err) {
      expect(String(err)).not.toContain('secret-token-123');
    }
  });

  it('reports unreadable and non-YAML files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    expect(fieldOf(() => loadConfigFile(join(dir, 'missing.yaml'), {}))).toBe('(file)');
    writeFileSync(join(dir, 'bad.yaml'), 'api: [unclosed');
    expect(fieldOf(() => loadConfigFile(join(dir, 'bad.yaml'), {}))).toBe('(file)');
  });

  describe('authentication', () => {
    const { token, ...base } = minimal.api;
    void token;
    const withApi = (api: Record<string, unknown>) => ({ ...minimal, api: { ...base, ...api } });
    const messageOf = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return `${(err as ConfigError).field}: ${String(err)}`;
      }
      throw new Error('expected a ConfigError');
    };

    it('needs exactly one of token, tokenFile, username, naming them', () => {
      expect(messageOf(() => parseConfig(withApi({}), {}))).toMatch(
        new RegExp(
          /^api\.token: .*exactly one of api\.token \(CDN_TOKEN\), api\.tokenFile \(CDN_TOKEN_FILE\), /.source +
            /api\.username \(CDN_USERNAME\) must be set; none is set/.source,
        ),
      );
      expect(
        messageOf(() => parseConfig(withApi({ token: 'secret-token-123' }), { CDN_TOKEN_FILE: '/run/token' })),
      ).toMatch(/^api\.tokenFile: .*api\.token and api\.tokenFile are set/);
      expect(parseConfig(withApi({}), { CDN_TOKEN_FILE: '/run/token' }).api.tokenFile).toBe('/run/token');
    });

    it('a login needs exactly one password source, and a password only goes with a login', () => {
      expect(messageOf(() => parseConfig(withApi({ username: 'ops' }), {}))).toMatch(/^api\.password: .*none is set/);
      expect(
        messageOf(() => parseConfig(withApi({ username: 'ops', passwordFile: '/p' }), { CDN_PASSWORD: 'pw-from-env' })),
      ).toMatch(/^api\.passwordFile: .*both are set/);
      expect(fieldOf(() => parseConfig(withApi({ token: 'secret-token-123', password: 'pw-123456' }), {}))).toBe(
        'api.password',
      );
      const c = parseConfig(withApi({}), { CDN_USERNAME: 'ops', CDN_PASSWORD: 'pw-from-env' });
      expect(c.api).toMatchObject({ username: 'ops', password: 'pw-from-env', loginBody: 'form', renewAfter: 0.8 });
    });
  });

  it('the shipped example config is valid once a token is given', () => {
    const c = loadConfigFile('config/collector.example.yaml', { CDN_TOKEN: 'x', INFLUX_TOKEN: 'y' });
    expect(c.sink.type).toBe('influx-v2');
    expect(c.jobs.dvr.streams).toHaveLength(1);
  });
});
