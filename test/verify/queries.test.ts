import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/loader.js';
import { DAY, HOUR } from '../../src/time.js';
import { windowOf } from '../../src/verify/plan.js';
import { buildFlux, fluxString } from '../../src/verify/readers/flux.js';
import { readerKindOf } from '../../src/verify/readers/kind.js';
import { buildInfluxQl } from '../../src/verify/readers/influxql.js';
import { victoriaSelector } from '../../src/verify/readers/victoria.js';
import { daemonRange } from '../../src/verify/job.js';

const day = Date.UTC(2026, 10, 20);
const query = {
  measurement: 'cdn_traffic',
  fields: ['traffic', 'hits'],
  from: day,
  to: day + 2 * DAY,
  windowMs: DAY,
  accounts: ['acme', 'o"brien'],
};

describe('the queries each reader builds', () => {
  it('Flux: sums per account, field and day stamped at the window start, plus point counts, quoting every name', () => {
    expect(buildFlux(query, 'analytics')).toBe(
      [
        'data = from(bucket: "analytics")',
        '  |> range(start: time(v: "2026-11-20T00:00:00.000Z"), stop: time(v: "2026-11-22T00:00:00.000Z"))',
        '  |> filter(fn: (r) => r._measurement == "cdn_traffic" and (r._field == "traffic" or r._field == "hits") ' +
          'and (r.account == "acme" or r.account == "o\\"brien"))',
        'sums = data',
        '  |> group(columns: ["account", "_field"])',
        '  |> aggregateWindow(every: 86400000ms, fn: sum, timeSrc: "_start", createEmpty: false)',
        '  |> toFloat()',
        'counts = data',
        '  |> filter(fn: (r) => r._field == "traffic")',
        '  |> group(columns: ["account"])',
        '  |> aggregateWindow(every: 86400000ms, fn: count, timeSrc: "_start", createEmpty: false)',
        '  |> toFloat()',
        '  |> set(key: "_field", value: "__points")',
        'union(tables: [sums, counts])',
        '  |> keep(columns: ["_time", "_value", "_field", "account"])',
      ].join('\n'),
    );
    // A name can never open a string interpolation or end the literal.
    expect(fluxString('a${b}"\\')).toBe('"a\\${b}\\"\\\\"');
  });

  // db..measurement is the default retention policy (db.name alone would read as policy.measurement).
  it('InfluxQL: GROUP BY epoch-aligned windows and account, retention policy when set, literals escaped', () => {
    expect(buildInfluxQl(query, { database: 'cdn', retentionPolicy: undefined })).toBe(
      'SELECT sum("traffic") AS "traffic", sum("hits") AS "hits", count("traffic") AS "__points" ' +
        'FROM "cdn".."cdn_traffic" ' +
        `WHERE time >= ${day}ms AND time < ${day + 2 * DAY}ms AND ("account" = 'acme' OR "account" = 'o"brien') ` +
        'GROUP BY time(86400000ms), "account" fill(none)',
    );
    expect(buildInfluxQl({ ...query, accounts: ["it's"] }, { database: 'cdn', retentionPolicy: 'year' })).toContain(
      `FROM "cdn"."year"."cdn_traffic" WHERE`,
    );
    expect(buildInfluxQl({ ...query, accounts: ["it's"] }, { database: 'cdn' })).toContain(`"account" = 'it\\'s'`);
  });

  it('VictoriaMetrics: <measurement>_<field> with the accounts as an escaped regex alternative', () => {
    expect(victoriaSelector('cdn_traffic', 'hits', ['acme', 'a.b|c', 'q"x'])).toBe(
      '{__name__="cdn_traffic_hits",account=~"acme|a\\\\.b\\\\|c|q\\"x"}',
    );
  });
});

describe('what the config implies', () => {
  const config = (sink: Record<string, unknown>, verify: Record<string, unknown> = {}) =>
    parseConfig({ api: { baseUrl: 'http://127.0.0.1:1', token: 't' }, accounts: ['acme'], sink, verify }, {});
  const v2 = { type: 'influx-v2', url: 'http://db:8086', token: 't', org: 'o', bucket: 'b' };

  it('the reader follows the sink unless verify.reader says otherwise', () => {
    expect(readerKindOf(config({ type: 'influx-v1', url: 'http://db:8086', database: 'cdn' }))).toBe('influxql');
    expect(readerKindOf(config(v2))).toBe('flux');
    expect(readerKindOf(config({ ...v2, backslashes: 'escaped' }))).toBe('victoriametrics');
    expect(readerKindOf(config({ ...v2, backslashes: 'escaped' }, { reader: 'flux' }))).toBe('flux');
    expect(readerKindOf(config({ type: 'file', path: 'out.lp' }))).toBeUndefined();
  });

  it('defaults: on, daily, yesterday, no repair', () => {
    expect(config(v2).verify).toEqual({
      enabled: true,
      schedule: '40 3 * * *',
      days: 1,
      repair: false,
      reader: 'auto',
      giveUpAfter: 120_000,
    });
    expect(() => config(v2, { days: 0 })).toThrow(/verify\.days/);
    expect(() => config(v2, { schedule: 'daily' })).toThrow(/verify\.schedule/);
  });

  it('the daemon verifies whole UTC days whose last buckets are final', () => {
    const c = config(v2);
    // 00:30 UTC: yesterday's last statistic bucket (23:55–24:00) is final only at 01:00, so the day before.
    expect(daemonRange({ config: c }, day + 30 * 60_000)).toEqual({
      from: day - 2 * DAY,
      to: day - DAY,
      windowMs: DAY,
    });
    expect(daemonRange({ config: c }, day + 3 * HOUR)).toEqual({ from: day - DAY, to: day, windowMs: DAY });
  });

  it('ranges are whole days, else whole hours', () => {
    expect(windowOf(day, day + DAY)).toBe(DAY);
    expect(windowOf(day + HOUR, day + 3 * HOUR)).toBe(HOUR);
    expect(windowOf(day + 1, day + HOUR)).toBeUndefined();
  });
});
