import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { SCHEMA } from '../../src/schema/schema.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { MetricsClient } from '../../src/sources/metrics/client.js';
import { builtInLagMs } from '../../src/plan/windows.js';
import { HOUR, MINUTE } from '../../src/time.js';
import { INFLUXD_BIN, serverSkipReason } from '../helpers/servers.js';
import { SetJobFacts } from '../helpers/job-facts.js';
import { DATABASE, fillInflux, type FilledInflux } from './dashboards-fixture.js';
import { checkQuery } from './query-check.js';

const FILE = 'config/grafana/provisioning/alerting/cdn-alerts.yaml';
const DATASOURCE_UID = 'cdn-influxdb';

interface Query {
  refId: string;
  relativeTimeRange: { from: number; to: number };
  datasourceUid: string;
  model: Record<string, unknown> & { refId: string };
}
interface Rule {
  uid: string;
  title: string;
  condition: string;
  data: Query[];
  noDataState: string;
  execErrState: string;
  for: string;
  annotations: Record<string, string>;
  labels: Record<string, string>;
}
interface Provisioning {
  apiVersion: number;
  groups: Array<{ orgId: number; name: string; folder: string; interval: string; rules: Rule[] }>;
}

const provisioning = parseYaml(readFileSync(FILE, 'utf8')) as Provisioning;
const rules = provisioning.groups.flatMap((g) => g.rules);
const influxQueries = (r: Rule) => r.data.filter((d) => d.datasourceUid === DATASOURCE_UID);

describe('Grafana alert rules (file provisioning)', () => {
  it('are valid provisioning: apiVersion 1, groups in a folder with an interval, conditions among the queries', () => {
    expect(provisioning.apiVersion).toBe(1);
    const datasource = readFileSync('config/grafana/provisioning/datasources/influxdb.yaml', 'utf8');
    expect(datasource).toContain(`uid: ${DATASOURCE_UID}`);
    for (const g of provisioning.groups) {
      expect(g).toMatchObject({ orgId: 1, folder: 'CDN', interval: expect.stringMatching(/^\d+[smh]$/) });
      for (const r of g.rules) {
        expect(r.uid, r.title).toMatch(/^[a-z0-9-]{1,40}$/);
        expect(
          r.data.map((d) => d.refId),
          r.uid,
        ).toContain(r.condition);
        expect(['OK', 'NoData', 'Alerting', 'KeepLast'], r.uid).toContain(r.noDataState);
        expect(['OK', 'Error', 'Alerting', 'KeepLast'], r.uid).toContain(r.execErrState);
        expect(r.for, r.uid).toMatch(/^\d+[smh]$/);
        expect(r.annotations.summary, r.uid).toBeTruthy();
        for (const d of r.data) {
          expect([DATASOURCE_UID, '__expr__'], r.uid).toContain(d.datasourceUid);
          expect(d.model.refId).toBe(d.refId);
          // Alert queries run without a dashboard: no dashboard variable may appear.
          if (d.datasourceUid === DATASOURCE_UID)
            expect(String(d.model.query).replace('$timeFilter', ''), r.uid).not.toMatch(/\$[A-Za-z_{]/);
        }
      }
    }
    expect(new Set(rules.map((r) => r.uid)).size).toBe(rules.length);
  });

  it('cover stale data, quota, auth, spans set aside, 5xx share, cache-ratio drop and DVR recording stopped', () => {
    expect(rules.map((r) => r.uid).sort()).toEqual(
      expect.arrayContaining([
        'cdn-data-stale',
        'cdn-quota-exhausted',
        'cdn-auth-failing',
        'cdn-spans-set-aside',
        'cdn-edge-5xx-share',
        'cdn-cache-ratio-drop',
        'cdn-dvr-recording-stopped',
      ]),
    );
  });

  it('name only measurements, tags and fields the collector writes, aggregated as they aggregate', () => {
    const problems = rules.flatMap((r) =>
      influxQueries(r).flatMap((d) =>
        checkQuery(String(d.model.query), SCHEMA).map((p) => `${r.uid} ${d.refId}: ${p}`),
      ),
    );
    expect(problems).toEqual([]);
  });
});

/**
 * Grafana's evaluation, done by hand: each InfluxQL query over its relative range, each reduced to its last value per
 * series, the math condition per series (joined on the series' tags). Returns the tags of the series that fire.
 */
async function evaluate(f: FilledInflux, rule: Rule, now: number): Promise<string[]> {
  const reduced = new Map<string, Map<string, number>>();
  for (const d of influxQueries(rule)) {
    const from = now - d.relativeTimeRange.from * 1000;
    const to = now - d.relativeTimeRange.to * 1000;
    const query = String(d.model.query).replaceAll('$timeFilter', `time >= ${from}ms AND time <= ${to}ms`);
    const values = new Map<string, number>();
    for (const s of await f.db.series(query, DATABASE)) {
      const last = s.values
        .map((row) => row[1])
        .filter((v): v is number => typeof v === 'number')
        .at(-1);
      if (last !== undefined) values.set(JSON.stringify(s.tags ?? {}), last);
    }
    const reducer = rule.data.find((x) => x.model.type === 'reduce' && x.model.expression === d.refId)!;
    reduced.set(reducer.refId, values);
  }
  const condition = String(rule.data.find((x) => x.refId === rule.condition)!.model.expression);
  const keys = new Set([...reduced.values()].flatMap((m) => [...m.keys()]));
  const fired: string[] = [];
  for (const key of keys) {
    const text = condition.replace(/\$(\w+)/g, (_, ref: string) => String(reduced.get(ref)?.get(key) ?? NaN));
    if (!/^[\d\s.eE+\-*/()<>=!&|NaN]+$/.test(text)) throw new Error(`cannot evaluate ${text}`);
    if (text.includes('NaN')) continue; // a series missing in one query: Grafana's math drops it
    if (Number(new Function(`return (${text});`)()) !== 0) fired.push(key);
  }
  return fired.sort();
}

describe.skipIf(serverSkipReason(INFLUXD_BIN) !== undefined)(
  'Grafana alert queries on InfluxDB 1.6.7 filled by the collector',
  () => {
    let f: FilledInflux;
    /** The jobs' facts the test sets, over the runtime's job state. */
    let jobs: SetJobFacts;
    const now = Date.now();
    const to = Math.floor((now - HOUR) / HOUR) * HOUR;

    beforeAll(async () => {
      f = await fillInflux(
        (sim) => ({
          statistic: { groupings: ['total'] },
          streamstat: { enabled: false },
          dvr: { streams: sim.streams },
        }),
        to - 3 * HOUR,
        to,
        { accounts: 2, quotas: NO_QUOTAS },
      );
      await f.rt.collector.tick();
      // Caught up: statistics an hour behind (read once final), the rest a minute; each within its built-in lag.
      jobs = SetJobFacts.watchedBy(f.rt.telemetry, f.rt.clock, f.rt.collector.state);
      for (const job of f.rt.collector.jobs)
        jobs.lag(job.key, job.key.startsWith('statistic/') ? HOUR : MINUTE, builtInLagMs(job.rule));
      await f.rt.sink.write(f.rt.telemetry.toPoints(Date.now() - 2 * MINUTE));
      await f.rt.sink.write(f.rt.telemetry.toPoints(Date.now()));
      await f.rt.sink.flush();
    }, 180_000);

    afterAll(() => f?.close());

    const byUid = (uid: string) => rules.find((r) => r.uid === uid)!;
    const write = async (lines: string[]) => {
      const res = await request(`${f.db.url}/write?db=${DATABASE}&precision=s`, {
        method: 'POST',
        body: lines.join('\n'),
      });
      expect(res.statusCode, await res.body.text()).toBe(204);
    };

    it('every query runs, and on the healthy simulated collector no rule fires', async () => {
      const fired: string[] = [];
      for (const r of rules) for (const key of await evaluate(f, r, Date.now())) fired.push(`${r.uid} ${key}`);
      expect(fired).toEqual([]);
      // And they are not empty by accident: the data rules see every collected account or stream.
      expect(
        (
          await f.db.series(
            String(influxQueries(byUid('cdn-edge-5xx-share'))[0]!.model.query).replace(
              '$timeFilter',
              `time >= ${Date.now() - HOUR}ms`,
            ),
            DATABASE,
          )
        ).length,
      ).toBe(2);
      const behind = await f.db.series(
        String(influxQueries(byUid('cdn-dvr-recording-stopped'))[0]!.model.query),
        DATABASE,
      );
      expect(behind.length).toBeGreaterThan(0);
      // A recording stream's newest range ends at its latest snapshot (within the snapshot's minute).
      expect(Math.min(...behind.map((s) => Number(s.values[0]![1])))).toBeLessThanOrEqual(60);
    });

    it("the 5xx share a rule evaluates = the metrics API's 5xx ÷ requests of that half hour, per account", async () => {
      const query = String(influxQueries(byUid('cdn-edge-5xx-share'))[0]!.model.query);
      const from = to - 30 * MINUTE;
      const shown = await f.db.series(
        query.replace('$timeFilter', `time >= ${from}ms AND time <= ${to - 1}ms`),
        DATABASE,
      );
      const metrics = new MetricsClient(new HttpClient({ baseUrl: f.sim.url, token: f.sim.token }));
      const accounts = f.sim.accounts.slice(0, 2);
      expect(shown.map((s) => s.tags!.account).sort()).toEqual([...accounts].sort());
      for (const account of accounts) {
        let errors = 0;
        let requests = 0;
        for (let t = from; t < to; t += 10 * MINUTE) {
          const [row] = (
            await metrics.aggregate({
              account,
              start: t,
              end: t + 10 * MINUTE,
              metrics: ['edge_status_5xx', 'edge_requests_total'],
            })
          ).data;
          errors += Number(row!.edge_status_5xx);
          requests += Number(row!.edge_requests_total);
        }
        expect(requests, account).toBeGreaterThan(0);
        expect(Number(shown.find((s) => s.tags!.account === account)!.values[0]![1]), account).toBeCloseTo(
          errors / requests,
          12,
        );
      }
    });

    it(
      'fire on injected faults: 5xx share, cache-ratio drop, ' +
        'a live stream that stopped recording, auth, spans set aside, lag, drift',
      async () => {
        const s = Math.floor(Date.now() / 1000);
        const minute = s - (s % 60);
        await write([
          `cdn_metrics,account=broken edge_status_5xx=50i,edge_requests_total=1000i ${minute - 600}`,
          ...[6, 5, 3].map(
            (d) =>
              `cdn_traffic,account=broken,service=all ` +
              `traffic=1000i,cached_traffic=900i,hits=1i,cache_ratio=0.9,bandwidth_peak=1i ${to / 1000 - d * 86_400}`,
          ),
          `cdn_traffic,account=broken,service=all ` +
            `traffic=1000i,cached_traffic=300i,hits=1i,cache_ratio=0.3,bandwidth_peak=1i ${to / 1000 - 3600}`,
          `cdn_dvr,account=broken,host=node-9,stream=live ` +
            `is_alive=true,enabled=true,recorded_seconds=600i,window=3600i,ranges=1i ${minute}`,
          `cdn_dvr_range,account=broken,host=node-9,stream=live ` +
            `starts_at=${minute - 1800}i,ends_at=${minute - 1200}i,length_seconds=600i,seen_at=${minute}i ` +
            `${minute - 1800}`,
          `cdn_collector,account=broken,field_key=hits,kind=verify_drift,measurement_name=cdn_traffic ` +
            `drift=-42 ${minute}`,
          `cdn_collector,account=fine,field_key=hits,kind=verify_drift,measurement_name=cdn_traffic drift=0 ${minute}`,
        ]);
        f.rt.telemetry.condition('auth', 'login refused');
        const job = f.rt.collector.jobs.find((j) => j.key.startsWith('metrics/'))!.key;
        jobs.setAside(job, 2).lag(job, 2 * HOUR);
        // A daily job 23 h behind is caught up (a day and its delay behind by design): not stale.
        jobs.lag('streamstat/fine/total/users_daily', 23 * HOUR, 24 * HOUR + 5 * 60_000);
        await f.rt.sink.write(f.rt.telemetry.toPoints(Date.now()));
        await f.rt.sink.flush();

        const at = Date.now();
        expect(await evaluate(f, byUid('cdn-edge-5xx-share'), at)).toEqual([JSON.stringify({ account: 'broken' })]);
        expect(await evaluate(f, byUid('cdn-cache-ratio-drop'), at)).toEqual([JSON.stringify({ account: 'broken' })]);
        expect(await evaluate(f, byUid('cdn-dvr-recording-stopped'), at)).toEqual([
          JSON.stringify({ account: 'broken', host: 'node-9', stream: 'live' }),
        ]);
        expect(await evaluate(f, byUid('cdn-auth-failing'), at)).toHaveLength(1);
        expect(await evaluate(f, byUid('cdn-spans-set-aside'), at)).toEqual([JSON.stringify({ job })]);
        expect(await evaluate(f, byUid('cdn-data-stale'), at)).toEqual([JSON.stringify({ job })]);
        expect(await evaluate(f, byUid('cdn-reconciliation-drift'), at)).toEqual([
          JSON.stringify({ account: 'broken', field_key: 'hits', measurement_name: 'cdn_traffic' }),
        ]);
      },
    );
  },
);
