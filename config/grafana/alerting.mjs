// Builds config/grafana/provisioning/alerting/cdn-alerts.yaml (Grafana alerting file provisioning, apiVersion 1) from
// the table below, for generate.mjs. Every rule: InfluxQL queries on the provisioned data source (refIds A, B, …),
// server-side expressions reducing each to one number per series (last) and a condition. Alert queries cannot use
// dashboard variables; $timeFilter is the query's relativeTimeRange. test/deploy/alerts-grafana.test.ts runs each one.
export const DS_UID = 'cdn-influxdb';
const MIN = 60;
const HOUR = 3600;

/** An InfluxQL query over the last `from` seconds (ending `to` seconds ago). */
const influx = (refId, query, from, to = 0) => ({
  refId,
  relativeTimeRange: { from, to },
  datasourceUid: DS_UID,
  model: { refId, query, rawQuery: true, resultFormat: 'time_series', intervalMs: 60_000, maxDataPoints: 43_200 },
});
const expr = (refId, model) => ({
  refId,
  relativeTimeRange: { from: 0, to: 0 },
  datasourceUid: '__expr__',
  model: { refId, ...model },
});
const reduce = (refId, of) =>
  expr(refId, { type: 'reduce', expression: of, reducer: 'last', settings: { mode: 'dropNN' } });
const math = (refId, expression) => expr(refId, { type: 'math', expression });

/**
 * One rule: `queries` are [refId, InfluxQL, from, to?]; each is reduced to its last value as `R<refId>` and `when` is a
 * math expression over those ($RA, $RB, …) that is non-zero while the alert should fire.
 */
function rule(uid, title, queries, when, opts) {
  return {
    uid,
    title,
    condition: 'ALERT',
    data: [
      ...queries.map(([refId, query, from, to]) => influx(refId, query, from, to)),
      ...queries.map(([refId]) => reduce(`R${refId}`, refId)),
      math('ALERT', when),
    ],
    noDataState: opts.noData ?? 'OK',
    execErrState: 'Error',
    for: opts.for,
    annotations: { summary: opts.summary, description: opts.description },
    labels: { severity: opts.severity ?? 'warning' },
    isPaused: false,
  };
}

const KIND = (kind) => `"kind" = '${kind}'`;
/** Increase of a self-monitoring counter over the range, per `by`, surviving restarts (counters restart at 0). */
const increase = (kind, by, extra = '') =>
  `SELECT sum("d") FROM (SELECT non_negative_difference(last("total")) AS "d" FROM "cdn_collector" ` +
  `WHERE ${KIND(kind)}${extra} AND $timeFilter GROUP BY time(1m), "instance"${by.map((t) => `, "${t}"`).join('')}) ` +
  `GROUP BY ${by.map((t) => `"${t}"`).join(', ')}`;

export const collectorRules = [
  rule(
    'cdn-data-stale',
    'CDN data stale (over 30 min behind what could be collected)',
    [
      [
        'A',
        `SELECT max("overdue_seconds") FROM "cdn_collector" WHERE ${KIND('job_overdue')} AND $timeFilter ` +
          `GROUP BY "job"`,
        10 * MIN,
      ],
    ],
    '$RA > 1800',
    {
      for: '10m',
      noData: 'Alerting',
      summary:
        'A collection job is more than 30 min behind what could be collected by now (its lag beyond its delay plus ' +
        'one window: statistics are an hour late and daily unique users a day late by design), ' +
        'or the collector writes no self-monitoring at all',
    },
  ),
  rule(
    'cdn-quota-exhausted',
    'CDN API quota exhausted (429)',
    [['A', increase('api_throttled', ['api']), 15 * MIN]],
    '$RA > 0',
    {
      for: '0s',
      summary:
        'The provider answered 429 Too Many Requests: the quota of this token is spent (shared with another client, ' +
        'or config quotas too high)',
    },
  ),
  rule(
    'cdn-auth-failing',
    'CDN token or login failing',
    [
      [
        'A',
        `SELECT last("active") FROM "cdn_collector" WHERE ${KIND('unhealthy')} AND "condition" = 'auth' ` +
          `AND $timeFilter GROUP BY "instance"`,
        5 * MIN,
      ],
    ],
    '$RA > 0',
    {
      for: '5m',
      severity: 'critical',
      summary: 'The collector cannot get or use an API token (login refused, token rejected): /healthz is 503',
    },
  ),
  rule(
    'cdn-calls-refused',
    'CDN API calls refused (401/403)',
    [['A', increase('api_calls', ['api'], ` AND "status" =~ /^40[13]$/`), 10 * MIN]],
    '$RA > 0',
    {
      for: '5m',
      severity: 'critical',
      summary: 'The API answers 401/403: the token is refused or lacks rights for an account',
    },
  ),
  // verify runs daily (config verify): its last drift per series stays the truth until the next run.
  rule(
    'cdn-reconciliation-drift',
    'CDN stored data drifts from the provider',
    [
      [
        'A',
        `SELECT last("drift") FROM "cdn_collector" WHERE ${KIND('verify_drift')} AND $timeFilter ` +
          `GROUP BY "measurement_name", "field_key", "account"`,
        2 * 24 * HOUR,
      ],
    ],
    '$RA > 0 || $RA < 0',
    {
      for: '0s',
      summary:
        "The reconciliation (verify) found stored sums that differ from the provider's totals; " +
        '`cdn-collector verify --repair` re-collects them',
    },
  ),
  rule(
    'cdn-spans-set-aside',
    'CDN spans set aside',
    [
      [
        'A',
        `SELECT last("spans") FROM "cdn_collector" WHERE ${KIND('spans_set_aside')} AND $timeFilter GROUP BY "job"`,
        10 * MIN,
      ],
    ],
    '$RA > 0',
    { for: '30m', summary: 'Spans failed for a permanent reason and are retried on a slow schedule; the log says why' },
  ),
];

export const dataRules = [
  rule(
    'cdn-edge-5xx-share',
    'CDN edge 5xx share over 2 %',
    [
      [
        'A',
        `SELECT sum("edge_status_5xx") / sum("edge_requests_total") FROM "cdn_metrics" WHERE $timeFilter ` +
          `GROUP BY "account"`,
        30 * MIN,
      ],
    ],
    '$RA > 0.02',
    { for: '10m', summary: 'More than 2 % of edge responses of the last 30 min were 5xx (metrics API)' },
  ),
  // Statistics are final about an hour late: compare the two hours before that with the week before it.
  rule(
    'cdn-cache-ratio-drop',
    'CDN cache ratio dropped',
    [
      [
        'A',
        `SELECT sum("cached_traffic") / sum("traffic") FROM "cdn_traffic" WHERE $timeFilter GROUP BY "account"`,
        3 * HOUR,
        HOUR,
      ],
      [
        'B',
        `SELECT sum("cached_traffic") / sum("traffic") FROM "cdn_traffic" WHERE $timeFilter GROUP BY "account"`,
        7 * 24 * HOUR,
        HOUR,
      ],
    ],
    '$RA < $RB - 0.1',
    {
      for: '30m',
      summary: "The cache ratio (cached bytes ÷ bytes) of the last final 2 h is more than 10 points below the week's",
    },
  ),
  // Alive with DVR enabled in the last 5 min, but the newest recording ends more than 5 min before the latest snapshot.
  // cdn_dvr_range has no time filter: a row's time is its recording's start, which may be days old.
  rule(
    'cdn-dvr-recording-stopped',
    'CDN DVR recording stopped on a live stream',
    [
      [
        'A',
        `SELECT max("seen_at") - max("ends_at") FROM "cdn_dvr_range" GROUP BY "account", "stream", "host"`,
        10 * MIN,
      ],
      [
        'B',
        `SELECT count("recorded_seconds") FROM "cdn_dvr" WHERE "is_alive" = true AND "enabled" = true ` +
          `AND $timeFilter GROUP BY "account", "stream", "host"`,
        5 * MIN,
      ],
    ],
    '$RA > 300 && $RB > 0',
    {
      for: '5m',
      severity: 'critical',
      summary: 'A live stream with DVR enabled has recorded nothing for 5 min on this node',
    },
  ),
];

/** The provisioning document: two groups (the collector itself, every 1 min; the CDN's data, every 5 min). */
export function alerting() {
  const group = (name, interval, rules) => ({ orgId: 1, name, folder: 'CDN', interval, rules });
  return { apiVersion: 1, groups: [group('cdn-collector', '1m', collectorRules), group('cdn-data', '5m', dataRules)] };
}
