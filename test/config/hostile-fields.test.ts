import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/loader.js';
import { checkConfig } from '../../src/config/rules.js';

/**
 * Configuration that used to pass validation and then fail at run time (exit 1, a stack trace), or be accepted and
 * quietly do the wrong thing. Each must be refused at load/check, naming its field (the CLI maps that to exit 2).
 */
const dir = mkdtempSync(join(tmpdir(), 'cfg-hostile-'));
const aFile = join(dir, 'not-a-dir');
writeFileSync(aFile, 'x');

const base = {
  api: { baseUrl: 'http://127.0.0.1:1', token: 'secret-token-123' },
  accounts: ['acme'],
  sink: { type: 'file', path: '-' },
  state: { dir: join(dir, 'state') },
};

/** The field named by the ConfigError that parse + check throw. */
function refusedField(raw: object): string {
  try {
    checkConfig(parseConfig(raw, {}));
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).field;
  }
  throw new Error('the configuration was accepted');
}

describe('configuration refused at --check', () => {
  it('accepts the base configuration', () => {
    expect(() => checkConfig(parseConfig(base, {}))).not.toThrow();
  });

  it.each([
    ['quota calls of 1e20', { quotas: { metrics: { calls: 1e20, period: '1m' } } }, 'quotas.metrics.calls'],
    ['state.dir pointing at a file', { state: { dir: aFile } }, 'state.dir'],
    ['state.dir below a file', { state: { dir: join(aFile, 'state') } }, 'state.dir'],
    ['an http.host no socket can bind', { http: { port: 9464, host: 'not a host!' } }, 'http.host'],
    ['an http.host URL', { http: { host: 'http://0.0.0.0' } }, 'http.host'],
    ['a blank account', { accounts: ['  '] }, 'accounts.0'],
    ['a duplicate account', { accounts: ['acme', 'globex', 'acme'] }, 'accounts.2'],
    [
      'a duplicate grouping',
      { jobs: { statistic: { groupings: ['total', 'codes', 'total'] } } },
      'jobs.statistic.groupings.2',
    ],
    [
      'a duplicate stream grouping',
      { jobs: { streamstat: { groupings: ['streams', 'streams'] } } },
      'jobs.streamstat.groupings.1',
    ],
    [
      'a duplicate DVR stream',
      {
        jobs: {
          dvr: {
            streams: [
              { account: 'acme', stream: 'live/a' },
              { account: 'acme', stream: 'live/a' },
            ],
          },
        },
      },
      'jobs.dvr.streams.1',
    ],
    [
      'a DVR stream name that climbs out of its path',
      { jobs: { dvr: { streams: [{ account: 'acme', stream: 'live/../x' }] } } },
      'jobs.dvr.streams.0',
    ],
    ['a DVR account "."', { jobs: { dvr: { streams: [{ account: '.', stream: 'live/a' }] } } }, 'jobs.dvr.streams.0'],
    ['output.batchSize 1e300', { output: { batchSize: 1e300 } }, 'output.batchSize'],
    ['output.batchSize over 100000', { output: { batchSize: 100_001 } }, 'output.batchSize'],
    ['output.retryFor as a number', { output: { retryFor: 5 } }, 'output.retryFor'],
    ['a 1 ms horizon', { state: { dir: join(dir, 'state'), horizon: '1ms' } }, 'state.horizon'],
    [
      'a horizon shorter than the statistics lag',
      { state: { dir: join(dir, 'state'), horizon: '30m' } },
      'state.horizon',
    ],
    ['a file: base URL', { api: { ...base.api, baseUrl: 'file:///etc/passwd' } }, 'api.baseUrl'],
    ['an ftp: base URL', { api: { ...base.api, baseUrl: 'ftp://cdn.example/' } }, 'api.baseUrl'],
    ['a file: sink URL', { sink: { type: 'influx-v1', url: 'file:///tmp/x', database: 'cdn' } }, 'sink.url'],
    [
      'an ftp: sink URL',
      { sink: { type: 'influx-v2', url: 'ftp://db', token: 't', org: 'o', bucket: 'b' } },
      'sink.url',
    ],
  ])('%s', (_name, change, field) => {
    expect(refusedField({ ...base, ...change })).toBe(field);
  });

  it('a horizon as long as a disabled job needs is not required', () => {
    const jobs = { statistic: { enabled: false }, streamstat: { enabled: false } };
    expect(() =>
      checkConfig(parseConfig({ ...base, jobs, state: { dir: join(dir, 'state'), horizon: '20m' } }, {})),
    ).not.toThrow();
  });

  it('binds the telemetry listener to loopback unless told otherwise', () => {
    expect(parseConfig(base, {}).http.host).toBe('127.0.0.1');
    expect(parseConfig({ ...base, http: { host: '::' } }, {}).http.host).toBe('::');
    expect(parseConfig({ ...base, http: { host: 'collector.local' } }, {}).http.host).toBe('collector.local');
  });
});

describe('rules across fields: every problem at once', () => {
  it('names each field that breaks a rule, not only the first', () => {
    const raw = {
      ...base,
      accounts: ['acme', 'acme'],
      jobs: { statistic: { provisional: true } },
      state: { dir: aFile, horizon: '1m' },
      output: { overwrites: false },
    };
    let problems: string[] = [];
    try {
      checkConfig(parseConfig(raw, {}));
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      problems = (err as ConfigError).problems.map((p) => p.field);
      expect((err as ConfigError).message).toMatch(/^config: \d+ problems\n/);
    }
    expect(problems).toEqual(['accounts.1', 'state.horizon', 'state.dir', 'jobs.statistic.provisional']);
  });
});
