import type { FieldType } from '../points.js';

/** Prometheus names and the InfluxDB measurement share this prefix. */
export const METRIC_PREFIX = 'cdn_collector';

/**
 * The Prometheus label of a tag, where they differ. Prometheus gives every scraped series its own `job` (the scrape
 * target), which would turn the collection job into `exported_job`; so it is `collector_job` on /metrics. The stored
 * InfluxDB tag stays `job`: the dashboards and alerts over existing databases read it.
 */
const PROMETHEUS_LABELS: Readonly<Record<string, string>> = { job: 'collector_job' };

export function prometheusLabel(tag: string): string {
  return PROMETHEUS_LABELS[tag] ?? tag;
}

export interface MetricDefinition {
  type: 'counter' | 'gauge';
  /** Tag keys (InfluxDB) besides `kind`; the Prometheus labels are these through prometheusLabel. */
  labels: readonly string[];
  /** Full Prometheus metric name. */
  promName: string;
  /** The InfluxDB field carrying the value, and its fixed type. */
  field: string;
  fieldType: FieldType;
  unit?: string;
  help: string;
}

const counter = (kind: string, labels: readonly string[], help: string): MetricDefinition => ({
  type: 'counter',
  labels,
  promName: `${METRIC_PREFIX}_${kind}_total`,
  field: 'total',
  fieldType: 'integer',
  unit: 'count since process start',
  help,
});

/**
 * Every self-monitoring metric, keyed by its `kind` (the `kind` tag in InfluxDB). One table drives the Prometheus
 * text, the InfluxDB points and the measurement schema, so the three cannot drift apart.
 */
export const METRICS = {
  api_calls: counter(
    'api_calls',
    ['api', 'status'],
    'HTTP calls by API and outcome: the HTTP status, or an error kind (timeout, network, bad_response, error)',
  ),
  api_retries: counter('api_retries', ['api'], 'Calls repeated after a retryable failure, by API'),
  api_throttled: counter('api_throttled', ['api'], 'Answers 429 Too Many Requests, by API'),
  points_written: counter('points_written', ['measurement_name'], 'Points the sink confirmed, by measurement'),
  dead_letters: counter('dead_letters', [], 'Lines the sink rejected permanently (kept in the dead-letter file)'),
  points_refused: counter(
    'points_refused',
    ['cause'],
    'Lines the database refused for good (field-type-conflict, beyond-retention, other), also in dead_letters',
  ),
  write_failures: counter('write_failures', [], 'Sink writes that failed and will be retried'),
  job_failures: counter('job_failures', ['job'], 'Collection passes that stopped early on an error, by job'),
  job_lag: {
    type: 'gauge',
    labels: ['job'],
    promName: `${METRIC_PREFIX}_job_lag_seconds`,
    field: 'lag_seconds',
    fieldType: 'float',
    unit: 's',
    help:
      "Now minus the end of the job's contiguous handled history (confirmed or set aside); a job that confirmed " +
      'nothing lags from the first window due after it joined',
  },
  job_overdue: {
    type: 'gauge',
    labels: ['job'],
    promName: `${METRIC_PREFIX}_job_overdue_seconds`,
    field: 'overdue_seconds',
    fieldType: 'float',
    unit: 's',
    help:
      'Lag beyond what the job has by design when caught up (its delay plus one window; a daily job is a day ' +
      'behind): one budget fits every job',
  },
  job_backlog: {
    type: 'gauge',
    labels: ['job'],
    promName: `${METRIC_PREFIX}_job_backlog_windows`,
    field: 'windows',
    fieldType: 'integer',
    unit: 'windows',
    help:
      'Windows a checkpointed job still lacks between its origin and the newest collectable window (within the ' +
      'horizon)',
  },
  spans_set_aside: {
    type: 'gauge',
    labels: ['job'],
    promName: `${METRIC_PREFIX}_spans_set_aside`,
    field: 'spans',
    fieldType: 'integer',
    unit: 'spans',
    help: 'Spans of the job that failed for a permanent reason and are retried on a slow schedule',
  },
  unhealthy: {
    type: 'gauge',
    labels: ['condition'],
    promName: `${METRIC_PREFIX}_unhealthy`,
    field: 'active',
    fieldType: 'integer',
    unit: 'flag',
    help: '1 while a condition makes /healthz answer 503 (state not writable, API failing, sink failing)',
  },
  checkpoint_age: {
    type: 'gauge',
    labels: ['job'],
    promName: `${METRIC_PREFIX}_checkpoint_age_seconds`,
    field: 'age_seconds',
    fieldType: 'float',
    unit: 's',
    help: 'Time since the job last persisted a confirmed span',
  },
  verify_drift: {
    type: 'gauge',
    labels: ['measurement_name', 'field_key', 'account'],
    promName: `${METRIC_PREFIX}_verify_drift`,
    field: 'drift',
    fieldType: 'float',
    unit: 'field unit (stored − provider)',
    help:
      'Last reconciliation (verify): stored sum minus the provider total over the drifting windows, per ' +
      'measurement (measurement_name), field (field_key: `measurement` and `field` are InfluxQL keywords) and ' +
      'account; 0 when it matched',
  },
  quota_demand: {
    type: 'gauge',
    labels: ['api'],
    promName: `${METRIC_PREFIX}_quota_demand_ratio`,
    field: 'ratio',
    fieldType: 'float',
    unit: 'calls needed ÷ calls allowed per quota period',
    help:
      'Steady-state calls the configured jobs need per quota period over the quota, by API (at start); above 1 ' +
      'the API cannot keep up (DVR streams then take turns)',
  },
  verify_last_run: {
    type: 'gauge',
    labels: [],
    promName: `${METRIC_PREFIX}_verify_last_run_timestamp_seconds`,
    field: 'timestamp_seconds',
    fieldType: 'float',
    unit: 's since the epoch',
    help: 'When the last reconciliation (verify) finished',
  },
} satisfies Record<string, MetricDefinition>;

export type MetricKind = keyof typeof METRICS;

/** One value of one series. */
export interface Sample {
  kind: MetricKind;
  labels: Record<string, string>;
  value: number;
}
