import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { StatisticClient } from '../../src/sources/statistic/client.js';
import { StreamstatClient } from '../../src/sources/streamstat/client.js';
import { DAY, HOUR } from '../../src/time.js';
import { INFLUXD_BIN, serverSkipReason } from '../helpers/servers.js';
import {
  DATABASE,
  expandGrafana,
  fillInflux,
  panelQuery,
  type FilledInflux,
  type PanelRange,
} from './dashboards-fixture.js';

const skip = serverSkipReason(INFLUXD_BIN);

/** A whole UTC day two days back: final in the statistics API, and a closed day for daily unique users. */
const DAY_START = Math.floor(Date.now() / DAY) * DAY - 2 * DAY;
const DAY_RANGE: PanelRange = { from: DAY_START, to: DAY_START + DAY, interval: '1h' };
/** Hours checked one by one (a few, not 24: every truth is an API call). */
const HOURS = [0, 9, 17].map((h) => DAY_START + h * HOUR);

/**
 * The values the dashboards show equal the simulator's own answers for the same period: the collector
 * fills InfluxDB 1.6.7 with a simulated day (the groupings of config/collector.docker.yaml), each panel's query runs
 * as Grafana would send it, and its value is held against the API's total for that account and period.
 */
describe.skipIf(skip)('dashboard values equal the simulator for the same period', () => {
  let f: FilledInflux;
  let statistic: StatisticClient;
  let streamstat: StreamstatClient;
  let accounts: string[];

  beforeAll(async () => {
    f = await fillInflux(
      () => ({
        metrics: { enabled: false },
        dvr: { enabled: false },
        statistic: { groupings: ['total', 'codes'] },
        streamstat: { groupings: ['total', 'streams'] },
      }),
      DAY_RANGE.from,
      DAY_RANGE.to,
      { accounts: 2, quotas: NO_QUOTAS },
    );
    accounts = f.sim.accounts.slice(0, 2);
    const http = new HttpClient({ baseUrl: f.sim.url, token: f.sim.token });
    statistic = new StatisticClient(http);
    streamstat = new StreamstatClient(http);
  }, 300_000);

  afterAll(() => f?.close());

  /** A panel's values: one per series (keyed by its tags, e.g. the account) and time. */
  async function panel(
    dashboard: string,
    title: string,
    range: PanelRange,
    type = 'timeseries',
  ): Promise<Map<string, Map<number, number>>> {
    const series = await f.db.series(expandGrafana(panelQuery(dashboard, type, title), range), DATABASE);
    const out = new Map<string, Map<number, number>>();
    for (const s of series) {
      const key = Object.values(s.tags ?? {}).join(' ');
      out.set(key, new Map(s.values.map((row) => [Number(row[0]), Number(row[1])])));
    }
    return out;
  }
  /** The single value of a stat panel (no GROUP BY): series "" at the range start. */
  async function stat(dashboard: string, title: string, range: PanelRange): Promise<number> {
    const values = [...((await panel(dashboard, title, range, 'stat')).get('')?.values() ?? [])];
    expect(values, `${dashboard} / ${title}`).toHaveLength(1);
    return values[0]!;
  }
  const trafficTotal = async (account: string, from: number, to: number) =>
    (await statistic.total({ account, start: from, end: to })).body;
  const viewsTotal = (account: string, from: number, to: number) => streamstat.total({ account, start: from, end: to });

  it('traffic per hour (panel "Traffic", one hour a bucket) = the API total of that hour, per account', async () => {
    const shown = await panel('cdn-traffic', 'Traffic', DAY_RANGE);
    for (const account of accounts) {
      for (const hour of HOURS) {
        const truth = await trafficTotal(account, hour, hour + HOUR);
        expect(truth.traffic, `${account} ${new Date(hour).toISOString()}`).toBeGreaterThan(0);
        expect(shown.get(account)?.get(hour), `${account} ${new Date(hour).toISOString()}`).toBe(truth.traffic);
      }
    }
  });

  it('hits, cache ratio and peak bandwidth of the day (stat panels) = the API totals of the day', async () => {
    const truths = await Promise.all(accounts.map((a) => trafficTotal(a, DAY_RANGE.from, DAY_RANGE.to)));
    const sum = (key: 'traffic' | 'hits') => truths.reduce((n, t) => n + (t[key] ?? 0), 0);
    expect(await stat('cdn-traffic', 'Traffic', DAY_RANGE)).toBe(sum('traffic'));
    expect(await stat('cdn-traffic', 'Hits', DAY_RANGE)).toBe(sum('hits'));
    // Weighted by traffic across accounts; cached bytes are rounded per bucket (≤ 0.5 byte each), hence closeTo.
    const cached = truths.reduce((n, t) => n + (t.traffic ?? 0) * (t.cache_ratio ?? 0), 0);
    expect(await stat('cdn-traffic', 'Cache ratio', DAY_RANGE)).toBeCloseTo(cached / sum('traffic'), 6);
    expect(await stat('cdn-traffic', 'Peak bandwidth', DAY_RANGE)).toBe(
      Math.max(...truths.map((t) => t.bandwidth ?? 0)),
    );
  });

  it('cache ratio per hour (panel "Cache ratio") = cached ÷ traffic of the API total of that hour', async () => {
    const shown = await panel('cdn-traffic', 'Cache ratio', DAY_RANGE);
    for (const account of accounts) {
      for (const hour of HOURS) {
        const truth = await trafficTotal(account, hour, hour + HOUR);
        expect(shown.get(account)?.get(hour), account).toBeCloseTo(truth.cache_ratio ?? NaN, 6);
      }
    }
  });

  it('hits per HTTP code over the day (table "Hits per code") = the API /codes totals', async () => {
    const rows = await f.db.series(
      expandGrafana(panelQuery('cdn-status-codes', 'table', 'Hits per code'), DAY_RANGE),
      DATABASE,
    );
    const shown = new Map(rows.map((s) => [s.tags!.code!, Number(s.values[0]![s.columns.indexOf('hits')])]));
    const truth = new Map<string, number>();
    for (const account of accounts) {
      for await (const page of statistic.pages('codes', { account, start: DAY_RANGE.from, end: DAY_RANGE.to })) {
        for (const row of page) truth.set(String(row.code), (truth.get(String(row.code)) ?? 0) + (row.hits ?? 0));
      }
    }
    expect(truth.size).toBeGreaterThan(1);
    expect(Object.fromEntries(shown)).toEqual(Object.fromEntries(truth));
  });

  it('unique users per day and per hour = the API users of that day / hour (never a sum of smaller ones)', async () => {
    const daily = await panel('cdn-streams', 'Unique users per day', { ...DAY_RANGE, interval: '1d' });
    const hourly = await panel('cdn-streams', 'Unique users per hour', DAY_RANGE);
    for (const account of accounts) {
      const day = await viewsTotal(account, DAY_RANGE.from, DAY_RANGE.to);
      expect(day.users, account).toBeGreaterThan(0);
      expect(daily.get(account)?.get(DAY_RANGE.from), account).toBe(day.users);
      for (const hour of HOURS) {
        const truth = await viewsTotal(account, hour, hour + HOUR);
        expect(hourly.get(account)?.get(hour), `${account} ${new Date(hour).toISOString()}`).toBe(truth.users);
      }
    }
  });

  it('views and peak simultaneous views of the day (stat panels) = the API totals of the day', async () => {
    const truths = await Promise.all(accounts.map((a) => viewsTotal(a, DAY_RANGE.from, DAY_RANGE.to)));
    expect(await stat('cdn-streams', 'Views', DAY_RANGE)).toBe(truths.reduce((n, t) => n + (t.views ?? 0), 0));
    expect(await stat('cdn-streams', 'Peak simultaneous views', DAY_RANGE)).toBe(
      Math.max(...truths.map((t) => t.views_max ?? 0)),
    );
  });
});
