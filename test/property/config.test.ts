import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError, loadConfigFile, parseConfig } from '../../src/config/loader.js';
import { checkConfig } from '../../src/config/rules.js';
import { anyCodePoints } from '../helpers/any-text.js';
import { mutated } from './arbitraries.js';

/** A full valid config: every section, so mutations reach every field. */
const VALID = {
  api: { baseUrl: 'http://127.0.0.1:8080', token: 't', tokenPlacement: 'query', timeout: '10s', language: 'en' },
  accounts: ['acme', 'globex'],
  quotas: { metrics: { calls: 120, period: '1m' }, statistic: { calls: 5, period: '1m' } },
  jobs: {
    metrics: { window: '10m', delay: '2m', metrics: ['edge_requests_total'], schedule: '*/1 * * * *' },
    statistic: { granularity: 'PT5M', lag: '1h', span: '1d', groupings: ['total', 'countries'] },
    streamstat: { granularity: 'PT5M', span: '6h', groupings: ['total'] },
    dvr: { interval: '1m', streams: [{ account: 'acme', stream: 'live/main' }] },
  },
  sink: { type: 'influx-v1', url: 'http://127.0.0.1:8086', database: 'cdn' },
  output: { batchSize: 5000, deadLetterPath: './dl.jsonl' },
  state: { dir: './state', horizon: '7d', initialLookback: '1h' },
  log: { level: 'info' },
  http: { port: 9100, maxLag: '2h' },
};

const ENV_NAMES = [
  'CDN_BASE_URL',
  'CDN_TOKEN',
  'CDN_ACCOUNTS',
  'INFLUX_URL',
  'INFLUX_TOKEN',
  'INFLUX_ORG',
  'INFLUX_BUCKET',
  'INFLUX_DATABASE',
];
const env = fc.dictionary(
  fc.constantFrom(...ENV_NAMES),
  fc.oneof(fc.string(), fc.constantFrom('http://x:1', 'a,b', ' , ')),
  { maxKeys: 3 },
);

/** A config either validates completely (schema and cross-field rules) or fails with a ConfigError naming a field. */
function validateOrConfigError(load: () => unknown): 'valid' | 'invalid' {
  try {
    checkConfig(load() as ReturnType<typeof parseConfig>);
    return 'valid';
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    expect(err.field.length).toBeGreaterThan(0);
    return 'invalid';
  }
}

describe('config loader with mutated and random input: a ConfigError, never a crash', () => {
  it('the base config is valid', () => {
    expect(validateOrConfigError(() => parseConfig(VALID, {}))).toBe('valid');
  });

  it('parseConfig: one value replaced or removed anywhere, random environment', () => {
    const outcomes = new Set<string>();
    fc.assert(
      fc.property(mutated(fc.constant(VALID)), env, (raw, vars) => {
        outcomes.add(validateOrConfigError(() => parseConfig(raw, vars)));
      }),
      { numRuns: 200 },
    );
    expect([...outcomes].sort()).toEqual(['invalid', 'valid']);
  });

  it('parseConfig: any value at all', () => {
    fc.assert(
      fc.property(fc.anything(), (raw) => {
        validateOrConfigError(() => parseConfig(raw, {}));
      }),
      { numRuns: 150 },
    );
  });

  it('durations: any numeral and unit is a ConfigError or a finite whole-ish ms value a timer can use', () => {
    const numeral = fc.oneof(
      fc.stringMatching(/^\d{1,400}(\.\d{1,5})?$/),
      fc.constantFrom('0', '0.0', '1e3', '-1', '', '9'.repeat(400)),
    );
    const unit = fc.constantFrom('ms', 's', 'm', 'h', 'd', ' s', 'x', '');
    fc.assert(
      fc.property(numeral, unit, fc.constantFrom('timeout', 'delay', 'horizon'), (n, u, field) => {
        const text = `${n}${u}`;
        const raw =
          field === 'timeout'
            ? { ...VALID, api: { ...VALID.api, timeout: text } }
            : field === 'delay'
              ? { ...VALID, jobs: { ...VALID.jobs, metrics: { ...VALID.jobs.metrics, delay: text } } }
              : { ...VALID, state: { ...VALID.state, horizon: text } };
        try {
          const config = parseConfig(raw, {});
          const ms =
            field === 'timeout'
              ? config.api.timeout
              : field === 'delay'
                ? config.jobs.metrics.delay
                : config.state.horizon;
          expect(Number.isFinite(ms) && ms > 0 && ms <= Number.MAX_SAFE_INTEGER).toBe(true);
          if (field === 'timeout') expect(ms).toBeLessThanOrEqual(2 ** 31 - 1);
        } catch (err) {
          if (!(err instanceof ConfigError)) throw err;
          expect(err.field).toMatch(/^(api\.timeout|jobs\.metrics\.delay|state\.horizon)$/);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('loadConfigFile: YAML of mutated configs, truncated or with bytes flipped, and random text', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfgprop-'));
    const damaged = fc
      .tuple(mutated(fc.constant(VALID)), fc.nat(), fc.nat(), fc.string({ maxLength: 3 }))
      .map(([cfg, at, cut, insert]) => {
        const text = stringify(cfg);
        const i = at % (text.length + 1);
        return text.slice(0, i) + insert + text.slice(Math.min(text.length, i + (cut % 4)));
      });
    let n = 0;
    fc.assert(
      fc.property(fc.oneof(damaged, fc.string(), anyCodePoints()), (text) => {
        const path = join(dir, `c${n++}.yaml`);
        writeFileSync(path, text);
        validateOrConfigError(() => loadConfigFile(path, {}));
      }),
      { numRuns: 200 },
    );
  });
});
