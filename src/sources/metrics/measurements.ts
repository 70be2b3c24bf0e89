import type { Aggregate, FieldSchema, MeasurementSchema } from '../../points.js';
import {
  METRIC_NAMES,
  metricFieldType,
  metricKind,
  SIZE_RANGES,
  type MetricKind,
  type MetricName,
  type SizeRange,
} from '../../spec/metrics.js';
import { metricFieldName } from './fields.js';

export const METRICS_MEASUREMENT = 'cdn_metrics';
export const METRICS_RESOURCE_MEASUREMENT = 'cdn_metrics_resource';

const UNITS: Record<MetricKind, string> = {
  count: 'requests',
  bandwidth: 'bit/s',
  hit_ratio: 'fraction',
  hit_bytes: 'bytes',
  request_time: 's',
};

const RANGE_TEXT: Record<SizeRange, string> = {
  '0_250k': '0–250 KB',
  '250k_500k': '250–500 KB',
  '500k_750k': '500–750 KB',
  '750k_1m': '750 KB–1 MB',
  '1m_2m': '1–2 MB',
  '2m_3m': '2–3 MB',
  '3m_4m': '3–4 MB',
  '4m_plus': 'more than 4 MB',
};

/** The spec's meaning of a metric, in words, for docs/schema.md. */
function describeMetric(name: MetricName): string {
  const side = name.startsWith('edge_') ? 'edge' : 'origin';
  const part = name.slice(side.length + 1);
  switch (metricKind(name)) {
    case 'bandwidth':
      return (
        `${side} bandwidth averaged over the window (not a peak); the mean of equal windows is the longer ` +
        `period's average`
      );
    case 'hit_ratio':
      // No total-bytes field to weigh it with: mean() over windows is unweighted (a quiet window counts as much as a
      // busy one).
      return (
        'share of cached traffic in the window: cached bytes / total bytes; averaging windows is unweighted by ' +
        'traffic'
      );
    case 'hit_bytes':
      return 'bytes returned from cache hits in the window';
    case 'request_time': {
      const range = SIZE_RANGES.find((r) => part.endsWith(`_${r}`));
      return `${side} median load time of 2xx responses of ${range ? RANGE_TEXT[range] : part}`;
    }
    case 'count':
      return part === 'requests_total'
        ? `requests to the ${side} servers in the window`
        : `${side} requests answered with status ${part.slice('status_'.length)} in the window`;
  }
}

/** Counts and bytes add up over windows; averages, ratios without a weight and medians can only be averaged. */
const AGGREGATES: Record<MetricKind, Aggregate> = {
  count: 'sum',
  hit_bytes: 'sum',
  bandwidth: 'mean',
  hit_ratio: 'mean',
  request_time: 'mean',
};

function metricField(name: MetricName): FieldSchema {
  const kind = metricKind(name);
  // Every kind is a count, rate, ratio, size or time: none can be negative.
  return {
    type: metricFieldType(name),
    description: describeMetric(name),
    unit: UNITS[kind],
    aggregate: AGGREGATES[kind],
    nonNegative: true,
  };
}

const METRIC_FIELDS: Record<string, FieldSchema> = Object.fromEntries(
  METRIC_NAMES.map((n) => [metricFieldName(n), metricField(n)]),
);

/**
 * Field names are the API's metric names, bandwidths with `_avg` (fields.ts); size ranges appear as
 * `<side>_request_time_<range>` (see spec/metrics.ts).
 */
export const metricsMeasurements: MeasurementSchema[] = [
  {
    name: METRICS_MEASUREMENT,
    description: 'CDN traffic metrics of an account, one point per window (time = window start)',
    source: 'GET /app/metrics/v1/',
    tags: { account: 'account name' },
    fields: METRIC_FIELDS,
    query:
      'SELECT sum("edge_requests_total") AS "requests", mean("edge_bandwidth_avg") AS "bandwidth" FROM "cdn_metrics" ' +
      'WHERE "account" = \'acme\' AND time > now() - 1d GROUP BY time(1h)',
  },
  {
    name: METRICS_RESOURCE_MEASUREMENT,
    description: 'CDN traffic metrics per resource, one point per resource and window (time = window start)',
    source: 'GET /app/metrics/v1/resources',
    tags: {
      account: 'account name',
      resource: 'resource identifier',
      resource_name: 'resource name',
      cname: 'host name of the resource',
    },
    fields: METRIC_FIELDS,
    query:
      'SELECT sum("edge_requests_total") AS "requests", mean("edge_bandwidth_avg") AS "bandwidth" FROM ' +
      '"cdn_metrics_resource" WHERE "account" = \'acme\' AND time > now() - 1d GROUP BY time(1h), "resource_name"',
  },
];
