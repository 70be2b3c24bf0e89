import { describe, expect, it } from 'vitest';
import { configDemand, overQuotaLines } from '../../src/cli/run/capacity-report.js';
import { parseConfig } from '../../src/config/loader.js';
import { checkConfig } from '../../src/config/rules.js';
import { demandLine, durationWords, overQuota } from '../../src/plan/capacity.js';

const NOW = Date.UTC(2026, 2, 2, 10, 0, 30);
const OFF = { metrics: { enabled: false }, statistic: { enabled: false }, streamstat: { enabled: false } };

function config(jobs: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const c = parseConfig(
    {
      api: { baseUrl: 'http://127.0.0.1:9', token: 't' },
      accounts: ['acme', 'globex'],
      jobs,
      sink: { type: 'file', path: '-' },
      ...extra,
    },
    {},
  );
  checkConfig(c);
  return c;
}

const streams = (n: number) => Array.from({ length: n }, (_, i) => ({ account: 'acme', stream: `live/s${i}` }));

describe('quota demand of a configuration', () => {
  it('102 DVR streams at 1 m against 60/min: 102 needed, 1.7× the quota, each stream every 1m42s', () => {
    const [dvr, ...others] = overQuota(configDemand(config({ ...OFF, dvr: { streams: streams(102) } }), NOW));
    expect(others).toEqual([]);
    expect(dvr).toMatchObject({ api: 'dvr', needed: 102, quota: { calls: 60, periodMs: 60_000 }, ratio: 1.7 });
    expect(demandLine(dvr!)).toBe(
      'dvr: 102 snapshots/min needed, quota 60/min: ' +
        'each stream is read every 1m42s instead of every 1m (streams take turns)',
    );
  });

  it('60 streams fit 60/min, and 102 fit a quota raised to 120 or an interval of 2 m', () => {
    expect(overQuotaLines(config({ ...OFF, dvr: { streams: streams(60) } }), NOW)).toEqual([]);
    expect(
      overQuotaLines(
        config({ ...OFF, dvr: { streams: streams(102) } }, { quotas: { dvr: { calls: 120, period: '1m' } } }),
        NOW,
      ),
    ).toEqual([]);
    const wider = configDemand(
      config({ ...OFF, dvr: { streams: streams(102), interval: '2m', schedule: '*/2 * * * *' } }),
      NOW,
    );
    expect(wider.find((d) => d.api === 'dvr')).toMatchObject({ needed: 51, ratio: 0.85 });
  });

  it('1-minute statistics buckets read every minute exceed 5/min; read every 30 min in 30-min spans, they fit', () => {
    const groupings = ['total', 'countries', 'regions', 'codes', 'browsers'];
    const everyMinute = config({
      ...OFF,
      dvr: { enabled: false },
      statistic: { enabled: true, granularity: 'PT1M', groupings, schedule: '*/1 * * * *' },
    });
    const [statistic] = overQuota(configDemand(everyMinute, NOW));
    expect(statistic?.api).toBe('statistic');
    expect(statistic!.needed).toBeGreaterThan(5);
    expect(demandLine(statistic!)).toMatch(/^statistic: \d+ calls\/min needed, quota 5\/min: collection falls behind/);
    const halfHourly = config({
      ...OFF,
      dvr: { enabled: false },
      statistic: { enabled: true, granularity: 'PT1M', groupings, schedule: '*/30 * * * *' },
    });
    const fits = configDemand(halfHourly, NOW).find((d) => d.api === 'statistic')!;
    expect(fits.needed).toBeCloseTo(statistic!.needed / 30, 5);
    expect(overQuota([fits])).toEqual([]);
  });

  it('durations read as a person writes them', () => {
    expect([102_000, 60_000, 3_600_000, 1_500, 90 * 60_000 + 5_000].map(durationWords)).toEqual([
      '1m42s',
      '1m',
      '1h',
      '1.5s',
      '1h30m5s',
    ]);
  });
});
