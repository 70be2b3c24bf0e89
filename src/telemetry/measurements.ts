import type { FieldSchema, MeasurementSchema } from '../points.js';
import { API_NAMES } from '../spec/apis.js';
import { METRIC_PREFIX, METRICS } from './metrics.js';

const TAG_MEANINGS: Record<string, string> = {
  kind: `which metric the point carries: ${Object.keys(METRICS).join(', ')}`,
  api: `API called: ${API_NAMES.join(', ')} (api_* kinds, quota_demand)`,
  status: 'HTTP status, or error kind: timeout, network, bad_response, error (api_calls)',
  measurement_name:
    'measurement the points went to (points_written), or that was reconciled (verify_drift); not `measurement`, an ' +
    'InfluxQL keyword',
  job:
    'collection job key, e.g. statistic/ACCOUNT/countries (job_*, spans_set_aside, checkpoint_age); ' +
    "on /metrics the label collector_job, as `job` is Prometheus' scrape target",
  field_key: 'the field compared by the reconciliation (verify_drift); measurement_name and account name the series',
  account: 'account of the reconciled series (verify_drift)',
  instance:
    'the collector process (config `instance`, default the host name), so shards writing to one database stay apart',
  cause: 'why the database refused lines for good: field-type-conflict, beyond-retention, other (points_refused)',
  condition: 'what makes /healthz answer 503, e.g. auth, state:checkpoints (unhealthy)',
};

/** One field per value shape; several kinds share a field (all counters use `total`). */
function fieldsOf(): Record<string, FieldSchema> {
  const kindsByField = new Map<string, string[]>();
  for (const [kind, def] of Object.entries(METRICS))
    kindsByField.set(def.field, [...(kindsByField.get(def.field) ?? []), kind]);
  const fields: Record<string, FieldSchema> = {};
  for (const [field, kinds] of kindsByField) {
    const def = METRICS[kinds[0] as keyof typeof METRICS];
    fields[field] = {
      type: def.fieldType,
      description: `${def.type} value of kind ${kinds.join(', ')}`,
      ...(def.unit ? { unit: def.unit } : {}),
    };
  }
  return fields;
}

/**
 * Self-monitoring: one point per series and flush, tagged with `kind` plus that kind's labels only (absent tags are
 * simply absent). Counters are cumulative since process start (use non_negative_difference for rates).
 */
export const collectorMeasurements: MeasurementSchema[] = [
  {
    name: METRIC_PREFIX,
    description:
      'The collector watching itself: calls, retries, throttling, points written, dead letters, write failures, ' +
      'per-job lag, backlog and checkpoint age',
    source: 'the collector process (also served as Prometheus text on /metrics)',
    tags: TAG_MEANINGS,
    fields: fieldsOf(),
  },
];
