#!/usr/bin/env node
// Generates config/grafana/dashboards/*.json (Grafana dashboard JSON, InfluxQL queries) from the tables below, so the
// seven dashboards share one panel layout and one datasource reference instead of copy-pasted JSON; and the alert
// rules' provisioning file config/grafana/provisioning/alerting/cdn-alerts.yaml from alerting.mjs.
//   node config/grafana/generate.mjs           rewrite the JSON files
//   node config/grafana/generate.mjs --check   exit 1 when a committed file differs (run by test/deploy)
// Measurement, tag and field names must be those of src/schema/schema.ts: test/deploy/dashboards.test.ts parses
// every query.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { alerting } from './alerting.mjs';
import { accountVar, dashboard, panel, q, variable } from './lib.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, 'dashboards');
const ALERTS = join(HERE, 'provisioning', 'alerting', 'cdn-alerts.yaml');
const ACC = `"account" =~ /^$account$/`;
const T = '$timeFilter';
const BY_TIME = 'GROUP BY time($__interval)';

/** `, "<tag>"` for each tag of `by`: the end of a GROUP BY that gives one series per value. */
const groupTags = (by) => by.map((t) => `, "${t}"`).join('');
/** A legend naming each series by its values of the tags `by`. */
const tagAlias = (by) => by.map((t) => `$tag_${t}`).join(' ');

/** `select` per interval of the range, from the rows of measurement `from` that `where` keeps; a series per `by`. */
const perInterval = (select, from, by, where = ACC, fill = 'none') =>
  `SELECT ${select} FROM "${from}" WHERE ${where} AND ${T} ${BY_TIME}${groupTags(by)} fill(${fill})`;

/**
 * A time series panel of one perInterval query (`where` and `fill` as there), its series named by their tags unless
 * `alias` names them otherwise.
 */
const series = (title, select, from, by, w, opts, { where, fill, alias = tagAlias(by) } = {}) =>
  panel('timeseries', title, [q(perInterval(select, from, by, where, fill), alias)], w, opts);

/** A table panel of one query. */
const table = (title, query, w, opts) => panel('table', title, [q(query, '', true)], w, opts);

/** The `$top` values of `tag` by the sum of `field` over the range. */
const topBy = (field, tag, from) =>
  `SELECT top("${field}", "${tag}", $top) AS "${field}" FROM ` +
  `(SELECT sum("${field}") AS "${field}" FROM "${from}" WHERE ${ACC} AND ${T} GROUP BY "${tag}")`;

/** The same aggregate of a field at the edge and at the origin, as two columns `edge` and `origin`. */
const edgeAndOrigin = (agg, field) => `${agg}("edge_${field}") AS "edge", ${agg}("origin_${field}") AS "origin"`;

/** Sums of the counters `<prefix>_status_<code>`, one column per code. */
const statusSums = (prefix, codes) => codes.map((c) => `sum("${prefix}_status_${c}") AS "${c}"`).join(', ');
const CLASSES = ['2xx', '3xx', '4xx', '5xx'];

/** `select` over the whole range from the selected accounts' rows of measurement `from`. */
const overRange = (select, from) => `SELECT ${select} FROM "${from}" WHERE ${ACC} AND ${T}`;

// ---- dashboards --------------------------------------------------------------------------------------------------

/** Cache ratio weighted by traffic (sum ÷ sum), never the mean of per-bucket ratios. */
const CACHE_RATIO = `sum("cached_traffic") / sum("traffic")`;

const traffic = dashboard(
  'cdn-traffic',
  'CDN traffic overview',
  'Bandwidth, traffic, hits, cache ratio and status classes per account (metrics API: cdn_metrics; statistics API: ' +
    'cdn_traffic, final about an hour late).',
  [accountVar],
  [
    panel('stat', 'Traffic', [q(overRange('sum("traffic")', 'cdn_traffic'))], 6, { unit: 'bytes', calc: 'sum' }),
    panel('stat', 'Hits', [q(overRange('sum("hits")', 'cdn_traffic'))], 6, { calc: 'sum' }),
    panel('stat', 'Cache ratio', [q(overRange(CACHE_RATIO, 'cdn_traffic'))], 6, {
      unit: 'percentunit',
      decimals: 1,
      description: 'Cached bytes ÷ bytes over the whole range (weighted by traffic).',
    }),
    panel('stat', 'Peak bandwidth', [q(overRange('max("bandwidth_peak")', 'cdn_traffic'))], 6, { unit: 'bps' }),
    series(
      'Bandwidth: edge vs origin (window averages)',
      edgeAndOrigin('mean', 'bandwidth_avg'),
      'cdn_metrics',
      ['account'],
      12,
      { unit: 'bps', interval: '10m' },
      { alias: '$tag_account $col' },
    ),
    series(
      'Requests: edge vs origin',
      edgeAndOrigin('sum', 'requests_total'),
      'cdn_metrics',
      ['account'],
      12,
      { interval: '10m' },
      { alias: '$tag_account $col' },
    ),
    series('Traffic', 'sum("traffic")', 'cdn_traffic', ['account'], 12, { unit: 'bytes', interval: '5m', stack: true }),
    series('Hits', 'sum("hits")', 'cdn_traffic', ['account'], 12, { interval: '5m', stack: true }),
    panel(
      'timeseries',
      'Cache ratio',
      [
        q(perInterval(CACHE_RATIO, 'cdn_traffic', ['account']), '$tag_account statistics'),
        q(perInterval('mean("edge_hit_ratio")', 'cdn_metrics', ['account']), '$tag_account metrics'),
      ],
      12,
      {
        unit: 'percentunit',
        interval: '10m',
        description:
          "statistics: cached bytes ÷ bytes per interval; metrics: mean of the windows' hit ratios (the API gives no " +
          'byte total to weigh them).',
      },
    ),
    series('Peak bandwidth', 'max("bandwidth_peak")', 'cdn_traffic', ['account'], 12, { unit: 'bps', interval: '5m' }),
    series(
      'Edge status classes',
      statusSums('edge', CLASSES),
      'cdn_metrics',
      [],
      24,
      { interval: '10m', stack: true },
      { alias: '$col' },
    ),
  ],
);

const resourceVar = variable(
  'resource',
  `SHOW TAG VALUES FROM "cdn_metrics_resource" WITH KEY = "resource_name" WHERE ${ACC}`,
);
const topVar = {
  name: 'top',
  label: 'top N',
  type: 'custom',
  query: '5,10,20,50',
  current: { selected: true, text: '10', value: '10' },
  options: ['5', '10', '20', '50'].map((v) => ({ selected: v === '10', text: v, value: v })),
};
/** The selected accounts and resources. */
const RES = { where: `${ACC} AND "resource_name" =~ /^$resource$/` };
const BY_RESOURCE = ['resource_name'];

const resources = dashboard(
  'cdn-resources',
  'CDN resources',
  'Per resource: top N by traffic and hits (statistics grouping resources: cdn_traffic_by_resources), bandwidth, ' +
    'hit ratio and errors (metrics per resource).',
  [accountVar, resourceVar, topVar],
  [
    table('Top resources by traffic', topBy('traffic', 'resource_name', 'cdn_traffic_by_resources'), 12, {
      unit: 'bytes',
      sortBy: 'traffic',
    }),
    table('Top resources by hits', topBy('hits', 'resource_name', 'cdn_traffic_by_resources'), 12, { sortBy: 'hits' }),
    series(
      'Edge bandwidth per resource (window averages)',
      'mean("edge_bandwidth_avg")',
      'cdn_metrics_resource',
      BY_RESOURCE,
      12,
      { unit: 'bps', interval: '10m' },
      RES,
    ),
    series(
      'Traffic per resource',
      'sum("traffic")',
      'cdn_traffic_by_resources',
      BY_RESOURCE,
      12,
      { unit: 'bytes', interval: '5m', stack: true },
      RES,
    ),
    panel(
      'timeseries',
      'Cache ratio per resource',
      [
        q(
          perInterval(CACHE_RATIO, 'cdn_traffic_by_resources', BY_RESOURCE, RES.where),
          '$tag_resource_name statistics',
        ),
        q(
          perInterval('mean("edge_hit_ratio")', 'cdn_metrics_resource', BY_RESOURCE, RES.where),
          '$tag_resource_name metrics',
        ),
      ],
      12,
      { unit: 'percentunit', interval: '10m' },
    ),
    series(
      'Edge 4xx and 5xx per resource',
      statusSums('edge', ['4xx', '5xx']),
      'cdn_metrics_resource',
      BY_RESOURCE,
      12,
      { interval: '10m' },
      { ...RES, alias: '$tag_resource_name $col' },
    ),
    series(
      'Origin requests per resource',
      'sum("origin_requests_total")',
      'cdn_metrics_resource',
      BY_RESOURCE,
      24,
      { interval: '10m', stack: true },
      RES,
    ),
  ],
);

const NEEDS_REGIONS =
  'Needs the statistics grouping regions: add it to jobs.statistic.groupings (off by default, on in compose)';

const geography = dashboard(
  'cdn-geography',
  'CDN geography',
  'Traffic and hits by country and region (statistics groupings countries and regions: cdn_traffic_by_countries, ' +
    'cdn_traffic_by_regions).',
  [accountVar, { ...topVar }],
  [
    table(
      'Countries',
      `SELECT sum("traffic") AS "traffic", sum("hits") AS "hits", ${CACHE_RATIO} AS "cache ratio" ` +
        `FROM "cdn_traffic_by_countries" WHERE ${ACC} AND ${T} GROUP BY "country", "country_name"`,
      12,
      { sortBy: 'traffic', h: 10 },
    ),
    table(
      'Regions',
      `SELECT sum("traffic") AS "traffic", sum("hits") AS "hits" FROM "cdn_traffic_by_regions" ` +
        `WHERE ${ACC} AND ${T} GROUP BY "country", "region", "region_name"`,
      12,
      { sortBy: 'traffic', h: 10, noValue: NEEDS_REGIONS },
    ),
    table('Top countries by traffic', topBy('traffic', 'country_name', 'cdn_traffic_by_countries'), 8, {
      unit: 'bytes',
      sortBy: 'traffic',
    }),
    series('Traffic by country', 'sum("traffic")', 'cdn_traffic_by_countries', ['country_name'], 16, {
      unit: 'bytes',
      interval: '5m',
      stack: true,
    }),
    series('Hits by region', 'sum("hits")', 'cdn_traffic_by_regions', ['country', 'region_name'], 24, {
      interval: '5m',
      stack: true,
      noValue: NEEDS_REGIONS,
    }),
  ],
);

/** Share of edge responses that were 5xx (the alert rule "5xx share" uses the same ratio). */
const EDGE_5XX_SHARE = `sum("edge_status_5xx") / sum("edge_requests_total")`;
/** Share of the `side`'s (edge, origin) responses that were 4xx or 5xx. */
const errorRatio = (side) => `(sum("${side}_status_4xx") + sum("${side}_status_5xx")) / sum("${side}_requests_total")`;
const PERCENT = { unit: 'percentunit', decimals: 2 };

const statusCodes = dashboard(
  'cdn-status-codes',
  'CDN status codes',
  'HTTP response codes: hits per code (statistics grouping codes: cdn_traffic_by_codes) and edge/origin status ' +
    'counters (metrics).',
  [accountVar],
  [
    panel('stat', 'Edge error ratio (4xx + 5xx)', [q(overRange(errorRatio('edge'), 'cdn_metrics'))], 6, PERCENT),
    panel('stat', 'Edge 5xx share', [q(overRange(EDGE_5XX_SHARE, 'cdn_metrics'))], 6, PERCENT),
    panel('stat', 'Origin error ratio (4xx + 5xx)', [q(overRange(errorRatio('origin'), 'cdn_metrics'))], 6, PERCENT),
    panel('stat', 'Edge 5xx', [q(overRange('sum("edge_status_5xx")', 'cdn_metrics'))], 6, { calc: 'sum' }),
    series('Hits by HTTP code', 'sum("hits")', 'cdn_traffic_by_codes', ['code'], 12, { interval: '5m', stack: true }),
    table(
      'Hits per code',
      `SELECT sum("hits") AS "hits", sum("traffic") AS "traffic" FROM "cdn_traffic_by_codes" ` +
        `WHERE ${ACC} AND ${T} GROUP BY "code"`,
      12,
      { sortBy: 'hits' },
    ),
    series(
      'Edge responses by status',
      statusSums('edge', ['200', '206', '304', '403', '404', '500', '502', '503', '504']),
      'cdn_metrics',
      [],
      12,
      { interval: '10m' },
      { alias: '$col' },
    ),
    series(
      'Origin status classes',
      statusSums('origin', CLASSES),
      'cdn_metrics',
      [],
      12,
      { interval: '10m', stack: true },
      { alias: '$col' },
    ),
  ],
);

const streamVar = variable('stream', `SHOW TAG VALUES FROM "cdn_views_by_streams" WITH KEY = "stream" WHERE ${ACC}`);
const STREAM = `"stream" =~ /^$stream$/`;
/**
 * The daily unique-user panels: a day's point is stamped at the start of the day and written once the day is over
 * (about an hour later), so the dashboard's last 24 h rarely hold one; these panels show the last 7 days instead.
 */
const DAILY = {
  timeFrom: '7d',
  noValue: 'No closed day collected yet: a day is written once it is over (backfill past days to see some)',
};
const DAILY_NOTE =
  "A day's point is stamped at the start of the day and written once the day is over: the last 7 days.";

/** Unique users of one period, read from the series counted over that period: never summed across buckets. */
const users = (measurement, period, by) =>
  `SELECT last("unique_users") FROM "${measurement}" WHERE ${ACC}${by.includes('stream') ? ` AND ${STREAM}` : ''} ` +
  `AND ${T} GROUP BY time(${period})${groupTags(by)} fill(none)`;

const dailyUsers = (title, measurement, by) =>
  panel('timeseries', title, [q(users(measurement, '1d', by), tagAlias(by))], 12, {
    ...DAILY,
    description: DAILY_NOTE,
  });

/** The selected accounts and streams, a series per both. */
const BY_STREAM = ['account', 'stream'];
const STREAMS = { where: `${ACC} AND ${STREAM}` };

const audience = dashboard(
  'cdn-streams',
  'Stream audience',
  'Views and peak simultaneous views (cdn_views, cdn_views_by_<grouping>) and unique users per hour and per day ' +
    '(cdn_users_hourly, cdn_users_daily: counted by the API over that period, never added up).',
  [accountVar, streamVar],
  [
    panel('stat', 'Views', [q(overRange('sum("views")', 'cdn_views'))], 8, { calc: 'sum' }),
    panel('stat', 'Peak simultaneous views', [q(overRange('max("views_max")', 'cdn_views'))], 8),
    panel(
      'stat',
      'Unique users, latest day',
      [q(`SELECT last("unique_users") FROM "cdn_users_daily" WHERE ${ACC} AND ${T} GROUP BY "account"`)],
      8,
      {
        ...DAILY,
        description:
          'Unique users of the latest closed day, as the API counts them for that day (not a sum of hours). ' +
          DAILY_NOTE,
      },
    ),
    series('Views', 'sum("views")', 'cdn_views', ['account'], 12, { interval: '5m' }),
    panel(
      'timeseries',
      'Unique users per hour',
      [q(users('cdn_users_hourly', '1h', ['account']), '$tag_account')],
      12,
      {
        description:
          'Users counted by the API over each hour: hours do not add up to a day (one user is counted in every hour ' +
          'they watched).',
      },
    ),
    dailyUsers('Unique users per day', 'cdn_users_daily', ['account']),
    series(
      'Peak simultaneous views by stream type',
      'max("views_max")',
      'cdn_views_by_stream_types',
      ['stream_type'],
      12,
      { interval: '5m' },
    ),
    series(
      'Peak simultaneous views by stream',
      'max("views_max")',
      'cdn_views_by_streams',
      BY_STREAM,
      12,
      { interval: '5m' },
      STREAMS,
    ),
    series(
      'Views by stream',
      'sum("views")',
      'cdn_views_by_streams',
      BY_STREAM,
      12,
      { interval: '5m', stack: true },
      STREAMS,
    ),
    panel(
      'timeseries',
      'Unique users per hour by stream',
      [q(users('cdn_users_hourly_by_streams', '1h', BY_STREAM), tagAlias(BY_STREAM))],
      12,
    ),
    dailyUsers('Unique users per day by stream', 'cdn_users_daily_by_streams', BY_STREAM),
    panel(
      'timeseries',
      'Unique users per hour by stream type',
      [q(users('cdn_users_hourly_by_stream_types', '1h', ['account', 'stream_type']), '$tag_account $tag_stream_type')],
      12,
    ),
    dailyUsers('Unique users per day by stream type', 'cdn_users_daily_by_stream_types', ['account', 'stream_type']),
    table(
      'Streams',
      `SELECT sum("views") AS "views", max("views_max") AS "peak simultaneous" FROM "cdn_views_by_streams" ` +
        `WHERE ${ACC} AND ${STREAM} AND ${T} GROUP BY "account", "stream"`,
      24,
      { sortBy: 'views' },
    ),
  ],
);

const dvrStreamVar = variable('stream', `SHOW TAG VALUES FROM "cdn_dvr" WITH KEY = "stream" WHERE ${ACC}`);
const hostVar = variable('host', `SHOW TAG VALUES FROM "cdn_dvr" WITH KEY = "host" WHERE ${ACC}`, 'node');
const DVR = `${ACC} AND ${STREAM} AND "host" =~ /^$host$/`;
/**
 * The recorded periods now: the query of cdn_dvr_range in src/sources/dvr/measurements.ts (rows whose seen_at is the
 * snapshot of the dashboard's end; 60 = jobs.dvr.interval) with the dashboard's filters; the test holds them equal.
 * No $timeFilter: a row's time is when the recording started, which may be long before the range shown.
 */
const DVR_RANGES_NOW =
  `SELECT "starts_at", "ends_at", "length_seconds", "seen_at" FROM "cdn_dvr_range" WHERE ${DVR} ` +
  `AND "seen_at" > \${__to:date:seconds} - 60 GROUP BY "account", "stream", "host"`;

/** The last snapshot's `field` per interval, a series per stream and node; a state shows until it changes. */
const perNode = (type, title, field, w, opts) =>
  panel(
    type,
    title,
    [
      q(
        perInterval(
          `last("${field}")`,
          'cdn_dvr',
          ['stream', 'host'],
          DVR,
          type === 'state-timeline' ? 'previous' : 'none',
        ),
        '$tag_stream @ $tag_host',
      ),
    ],
    w,
    { interval: '1m', ...opts },
  );

const dvr = dashboard(
  'cdn-dvr',
  'DVR',
  'Network DVR per stream and node: alive, enabled, recorded duration, depth, and the recorded periods now (cdn_dvr ' +
    'snapshots, cdn_dvr_range: one row per recording).',
  [accountVar, dvrStreamVar, hostVar],
  [
    perNode('state-timeline', 'Alive per node', 'is_alive', 12),
    perNode('state-timeline', 'DVR enabled per node', 'enabled', 12),
    perNode('timeseries', 'Recorded duration per node', 'recorded_seconds', 12, { unit: 's' }),
    perNode('timeseries', 'Recorded periods per node', 'ranges', 12),
    perNode('timeseries', 'DVR depth (window)', 'window', 8, { unit: 's' }),
    panel('table', 'Recorded periods now (time = first seen start)', [q(DVR_RANGES_NOW, '', true)], 16, {
      description:
        'The recordings the latest DVR snapshot listed (seen_at within a snapshot interval of the range end); ' +
        'starts_at/ends_at in unix seconds.',
      noValue:
        "No DVR snapshot in the range's last minute: the collector is stopped, or watches no stream " +
        '(jobs.dvr.streams)',
    }),
  ],
);

const jobVar = variable('job', 'SHOW TAG VALUES FROM "cdn_collector" WITH KEY = "job"');
const apiVar = variable('api', 'SHOW TAG VALUES FROM "cdn_collector" WITH KEY = "api"');
const API = `"api" =~ /^$api$/`;
const JOB = `"job" =~ /^$job$/`;
/** Counters are cumulative since process start: the increase per interval survives restarts. */
const increase = (kind, by, where = '') =>
  perInterval('non_negative_difference(last("total"))', 'cdn_collector', by, `"kind" = '${kind}'${where}`);
const gauge = (kind, field, agg = 'last') =>
  perInterval(`${agg}("${field}")`, 'cdn_collector', ['job'], `"kind" = '${kind}' AND ${JOB}`);

/** Counter panels show increases: two snapshots, written a minute apart by a running collector. */
const TWO_SNAPSHOTS = 'two self-monitoring snapshots a minute apart (a running collector writes one a minute)';
const noneOr = (what) => ({ noValue: `No ${what} recorded (or not yet ${TWO_SNAPSHOTS})` });

const collector = dashboard(
  'cdn-collector-health',
  'Collector health',
  'cdn-collector watching itself (cdn_collector, written once a minute; also on /metrics): calls and 429s per API, ' +
    'retries, errors, lag, checkpoint age, backlog, dead letters.',
  [apiVar, jobVar],
  [
    panel(
      'stat',
      'Dead letters',
      [q(`SELECT last("total") FROM "cdn_collector" WHERE "kind" = 'dead_letters' AND ${T}`)],
      6,
      {
        description:
          'Lines the database rejected permanently since the collector started; kept in the dead-letter file on the ' +
          'state volume.',
      },
    ),
    panel(
      'stat',
      'Write failures',
      [q(`SELECT last("total") FROM "cdn_collector" WHERE "kind" = 'write_failures' AND ${T}`)],
      6,
    ),
    panel('stat', 'Max job lag', [q(`SELECT max("last") FROM (${gauge('job_lag', 'lag_seconds')})`)], 6, { unit: 's' }),
    panel(
      'stat',
      'Backfill remaining (windows)',
      [
        q(
          `SELECT sum("last") FROM (SELECT last("windows") FROM "cdn_collector" WHERE "kind" = 'job_backlog' ` +
            `AND ${JOB} AND ${T} GROUP BY "job")`,
        ),
      ],
      6,
    ),
    panel(
      'timeseries',
      'API calls by status',
      [q(increase('api_calls', ['api', 'status'], ` AND ${API}`), '$tag_api $tag_status')],
      12,
      { interval: '1m', stack: true, noValue: `Needs ${TWO_SNAPSHOTS}` },
    ),
    panel(
      'timeseries',
      '429 Too Many Requests',
      [q(increase('api_throttled', ['api'], ` AND ${API}`), '$tag_api')],
      12,
      { interval: '1m', ...noneOr('429') },
    ),
    panel('timeseries', 'Retries', [q(increase('api_retries', ['api'], ` AND ${API}`), '$tag_api')], 12, {
      interval: '1m',
      ...noneOr('retry'),
    }),
    panel(
      'timeseries',
      'Errors',
      [
        q(increase('api_calls', ['api', 'status'], ` AND ${API} AND "status" !~ /^[23]/`), 'call $tag_api $tag_status'),
        q(increase('job_failures', ['job'], ` AND ${JOB}`), 'job $tag_job'),
        q(increase('write_failures', []), 'sink write'),
      ],
      12,
      {
        interval: '1m',
        ...noneOr('error'),
        description:
          'Calls answered other than 2xx/3xx (or not answered), collection passes stopped by an error, ' +
          'failed sink writes.',
      },
    ),
    panel('timeseries', 'Lag per job', [q(gauge('job_lag', 'lag_seconds'), '$tag_job')], 12, {
      unit: 's',
      interval: '1m',
      description: 'Now minus the end of the contiguous collected prefix; statistics lag about an hour by design.',
    }),
    panel('timeseries', 'Checkpoint age per job', [q(gauge('checkpoint_age', 'age_seconds'), '$tag_job')], 12, {
      unit: 's',
      interval: '1m',
    }),
    panel('timeseries', 'Backfill remaining per job', [q(gauge('job_backlog', 'windows'), '$tag_job')], 12, {
      interval: '1m',
    }),
    series(
      'Reconciliation drift (stored − provider)',
      'last("drift")',
      'cdn_collector',
      ['measurement_name', 'field_key', 'account'],
      12,
      {
        interval: '1m',
        noValue: 'No verify run in the range (cdn-collector verify, or the verify job)',
        description: "Written by the verify job/command: 0 when stored sums match the provider's totals.",
      },
      { where: `"kind" = 'verify_drift'` },
    ),
    panel(
      'timeseries',
      'Points written by measurement',
      [q(increase('points_written', ['measurement_name']), '$tag_measurement_name')],
      12,
      { interval: '1m', stack: true, noValue: `Needs ${TWO_SNAPSHOTS}` },
    ),
  ],
);

// ---- output ------------------------------------------------------------------------------------------------------

const all = {
  'cdn-traffic': traffic,
  'cdn-resources': resources,
  'cdn-geography': geography,
  'cdn-status-codes': statusCodes,
  'cdn-streams': audience,
  'cdn-dvr': dvr,
  'cdn-collector-health': collector,
};
const check = process.argv.includes('--check');
const ALERTS_HEADER =
  '# Generated by config/grafana/generate.mjs from alerting.mjs; do not edit. Grafana alerting file provisioning.\n';
const outputs = [
  ...Object.entries(all).map(([name, json]) => [join(OUT, `${name}.json`), `${JSON.stringify(json, null, 2)}\n`]),
  [ALERTS, ALERTS_HEADER + stringify(alerting(), { lineWidth: 0 })],
];
let stale = 0;
for (const [path, text] of outputs) {
  if (!check) writeFileSync(path, text);
  else if (readOrEmpty(path) !== text) {
    process.stderr.write(`${path} differs from what config/grafana/generate.mjs produces; run it\n`);
    stale++;
  }
}
process.exitCode = stale > 0 ? 1 : 0;

function readOrEmpty(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
