import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { SCHEMA } from '../../src/schema/schema.js';
import { loadDeployConfig } from '../helpers/deploy-config.js';
import { checkQuery, type Collected } from './query-check.js';

const GRAFANA = 'config/grafana';
const DASHBOARDS = join(GRAFANA, 'dashboards');
const FILES = readdirSync(DASHBOARDS)
  .filter((f) => f.endsWith('.json'))
  .sort();

interface Target {
  refId: string;
  query?: string;
  rawQuery?: boolean;
  datasource?: { uid?: string };
}
interface Panel {
  id: number;
  title: string;
  type: string;
  targets?: Target[];
  gridPos?: Record<string, number>;
}
interface Variable {
  name: string;
  type: string;
  query?: unknown;
}
interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: Variable[] };
}

const dashboards = FILES.map((file) => ({
  file,
  json: JSON.parse(readFileSync(join(DASHBOARDS, file), 'utf8')) as Dashboard,
}));

/** Every query of a dashboard: panel targets and query variables, with where it sits (for failure messages). */
function queriesOf(d: Dashboard): Array<{ where: string; query: string }> {
  const out = d.panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({ where: `panel "${p.title}" ${t.refId}`, query: t.query ?? '' })),
  );
  for (const v of d.templating.list)
    if (v.type === 'query') out.push({ where: `variable $${v.name}`, query: String(v.query) });
  return out;
}

/**
 * The measurements a compose config makes the collector write: every measurement of the schema, but a
 * `<api measurement>_by_<grouping>` one only for a grouping the config collects (a panel on another stays empty).
 */
function collectedBy(configFile: string): Collected {
  const config = loadDeployConfig(configFile);
  const grouped = (groupings: readonly string[]) => new Set(groupings.map((g) => g.replaceAll('-', '_')));
  const traffic = grouped(config.jobs.statistic.groupings);
  const views = grouped(config.jobs.streamstat.groupings);
  return new Set(
    [...SCHEMA.keys()].filter((name) => {
      const by = /^(cdn_traffic|cdn_views|cdn_users_hourly|cdn_users_daily)_by_(.+)$/.exec(name);
      return !by || (by[1] === 'cdn_traffic' ? traffic : views).has(by[2]!);
    }),
  );
}

const BUILTIN_VARIABLES = new Set([
  'timeFilter',
  '__interval',
  '__interval_ms',
  '__from',
  '__to',
  '__range',
  '__timeFilter',
]);

describe('InfluxQL checker (the dashboard test can fail)', () => {
  const ok = (q: string) => expect(checkQuery(q, SCHEMA)).toEqual([]);
  const bad = (q: string, problem: RegExp) => expect(checkQuery(q, SCHEMA).join('\n')).toMatch(problem);

  it('accepts queries on real names, subqueries on their columns, and SHOW TAG VALUES on real tags', () => {
    ok(
      `SELECT mean("edge_bandwidth_avg") AS "edge" FROM "cdn_metrics" WHERE "account" =~ /^$account$/ AND ` +
        `$timeFilter GROUP BY time($__interval), "account" fill(none)`,
    );
    ok(
      `SELECT top("traffic", "resource_name", $top) FROM (SELECT sum("traffic") AS "traffic" FROM ` +
        `"cdn_traffic_by_resources" GROUP BY "resource_name")`,
    );
    ok(
      `SELECT (sum("edge_status_4xx") + sum(edge_status_5xx)) / sum("edge_requests_total") FROM cdn_metrics WHERE ` +
        `time > now() - 1h`,
    );
    ok('SHOW TAG VALUES FROM "cdn_views_by_streams" WITH KEY = "stream" WHERE "account" =~ /^(a|b)$/');
    ok(
      `SELECT non_negative_difference(last("total")) FROM "cdn_collector" WHERE "kind" = 'api_calls' AND "status" !~ ` +
        `/^[23]/ GROUP BY time(1m), "api"`,
    );
  });

  it('names the unknown measurement, field, tag, group-by tag, subquery column and tag key', () => {
    bad('SELECT mean("edge_bandwidth_avg") FROM "cdn_metric"', /unknown measurement "cdn_metric"/);
    bad('SELECT mean("edge_bandwith_avg") FROM "cdn_metrics"', /SELECT names "edge_bandwith_avg"/);
    bad(`SELECT sum("traffic") FROM "cdn_traffic" WHERE "acount" = 'a'`, /WHERE names "acount"/);
    bad(
      'SELECT sum("views") FROM "cdn_views_by_stream_types" GROUP BY time(5m), "streamtype"',
      /GROUP BY "streamtype"/,
    );
    bad(
      'SELECT max("lag_seconds") FROM (SELECT last("lag_seconds") FROM "cdn_collector" GROUP BY "job")',
      /SELECT names "lag_seconds", not a field or tag of the subquery/,
    );
    bad(
      'SELECT top("traffic", "country", 5) FROM (SELECT sum("traffic") AS "traffic" FROM "cdn_traffic_by_countries" ' +
        'GROUP BY "country_name")',
      /"country"/,
    );
    bad('SHOW TAG VALUES FROM "cdn_dvr" WITH KEY = "node"', /"node" is not a tag of cdn_dvr/);
    bad('SHOW TAG VALUES WITH KEY = "acount"', /"acount" is not a tag of any measurement/);
  });

  it('checks the self-monitoring kind and its field, and that the config collects the measurement', () => {
    bad(
      `SELECT last("total") FROM "cdn_collector" WHERE "kind" = 'api_call'`,
      /kind 'api_call' is not a self-monitoring metric/,
    );
    bad(
      `SELECT last("total") FROM "cdn_collector" WHERE "kind" = 'job_lag'`,
      /kind 'job_lag' carries field "lag_seconds", not "total"/,
    );
    expect(
      checkQuery(
        `SELECT sum("hits") FROM "cdn_traffic_by_browsers"`,
        SCHEMA,
        new Set(['cdn_traffic', 'cdn_traffic_by_codes']),
      ),
    ).toEqual([`"cdn_traffic_by_browsers" is not written with this config`]);
  });

  it('refuses aggregates that lie: a sum of unique users, a mean of a ratio, a sum of peaks', () => {
    bad(
      `SELECT sum("unique_users") FROM "cdn_users_daily" WHERE $timeFilter GROUP BY time(1d)`,
      /sum\("unique_users"\) does not fit cdn_users_daily.unique_users, which aggregates as last/,
    );
    bad(
      `SELECT mean("cache_ratio") FROM "cdn_traffic"`,
      /mean\("cache_ratio"\) does not fit .* as ratio \(use sum\("cached_traffic"\) \/ sum\("traffic"\)\)/,
    );
    bad(`SELECT sum("bandwidth_peak") FROM "cdn_traffic"`, /sum\("bandwidth_peak"\) does not fit/);
    ok(`SELECT sum("cached_traffic") / sum("traffic") FROM "cdn_traffic" GROUP BY time(1h)`);
    ok(`SELECT last("unique_users") FROM "cdn_users_hourly" GROUP BY time(1h), "account"`);
  });

  it('refuses what it cannot check instead of passing it', () => {
    bad('SELECT * FROM "cdn_metrics"', /does not parse/);
    bad('SELECT mean("x") FROM /cdn_.*/', /does not parse/);
    bad(`SELECT mean("edge_bandwidth") FROM "cdn_metrics" WHERE "account" = 'a`, /does not parse/);
    bad('SELECT mean("edge_bandwidth") FROM "cdn_metrics" GARBAGE', /does not parse/);
  });
});

describe('provisioned Grafana dashboards', () => {
  const datasources = parseYaml(readFileSync(join(GRAFANA, 'provisioning/datasources/influxdb.yaml'), 'utf8')) as {
    datasources: Array<{ uid: string; type: string; jsonData: { version?: string } }>;
  };
  const ds = datasources.datasources[0]!;

  it('are the committed output of config/grafana/generate.mjs', () => {
    expect(() =>
      execFileSync(process.execPath, [join(GRAFANA, 'generate.mjs'), '--check'], { stdio: 'pipe' }),
    ).not.toThrow();
  });

  it('cover every dashboard of the issue, with unique uids, on the provisioned InfluxQL data source', () => {
    expect(FILES).toEqual([
      'cdn-collector-health.json',
      'cdn-dvr.json',
      'cdn-geography.json',
      'cdn-resources.json',
      'cdn-status-codes.json',
      'cdn-streams.json',
      'cdn-traffic.json',
    ]);
    expect(new Set(dashboards.map((d) => d.json.uid)).size).toBe(dashboards.length);
    expect(ds).toMatchObject({ type: 'influxdb', jsonData: { version: 'InfluxQL' } });
    for (const { json } of dashboards) {
      expect(json.panels.length, json.title).toBeGreaterThan(0);
      for (const p of json.panels) {
        expect(p.gridPos, `${json.title}: ${p.title}`).toBeDefined();
        expect(p.targets?.length, `${json.title}: ${p.title}`).toBeGreaterThan(0);
        for (const t of p.targets ?? [])
          expect({ panel: p.title, uid: t.datasource?.uid, raw: t.rawQuery }).toEqual({
            panel: p.title,
            uid: ds.uid,
            raw: true,
          });
      }
    }
  });

  it('have template variables for account, resource and stream', () => {
    const vars = (uid: string) => dashboards.find((d) => d.json.uid === uid)!.json.templating.list.map((v) => v.name);
    expect(vars('cdn-traffic')).toContain('account');
    expect(vars('cdn-resources')).toEqual(expect.arrayContaining(['account', 'resource']));
    expect(vars('cdn-streams')).toEqual(expect.arrayContaining(['account', 'stream']));
    expect(vars('cdn-dvr')).toEqual(expect.arrayContaining(['account', 'stream']));
  });

  for (const config of ['config/collector.docker.yaml', 'config/collector.sim.yaml']) {
    it(`name only measurements, tags and fields the collector writes (${config}), aggregated as they aggregate`, () => {
      const collected = collectedBy(config);
      const problems = dashboards.flatMap(({ json }) =>
        queriesOf(json).flatMap(({ where, query }) =>
          checkQuery(query, SCHEMA, collected).map((p) => `${json.title} / ${where}: ${p}`),
        ),
      );
      expect(problems).toEqual([]);
    });
  }

  it('use only variables they define', () => {
    const problems: string[] = [];
    for (const { json } of dashboards) {
      const defined = new Set(json.templating.list.map((v) => v.name));
      for (const { where, query } of queriesOf(json)) {
        for (const [, name] of query.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)) {
          if (!defined.has(name!) && !BUILTIN_VARIABLES.has(name!)) problems.push(`${json.title} / ${where}: $${name}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('show every measurement the compose config makes the collector write somewhere', () => {
    const used = new Set(
      dashboards.flatMap(({ json }) =>
        queriesOf(json).flatMap(({ query }) => [...query.matchAll(/FROM "([a-z_]+)"/g)].map((m) => m[1])),
      ),
    );
    expect([...collectedBy('config/collector.docker.yaml')].filter((m) => !used.has(m))).toEqual([]);
  });

  it('list the recorded DVR periods now with the query docs/schema.md gives for cdn_dvr_range, plus filters', () => {
    const dvr = dashboards.find((d) => d.json.uid === 'cdn-dvr')!.json;
    const table = dvr.panels.find((p) => p.title.startsWith('Recorded periods now'))!;
    const filters = 'WHERE "account" =~ /^$account$/ AND "stream" =~ /^$stream$/ AND "host" =~ /^$host$/ AND ';
    expect(table.targets![0]!.query!.replace(filters, 'WHERE ')).toBe(SCHEMA.get('cdn_dvr_range')!.query);
  });
});
