import type { FieldSchema, MeasurementSchema } from '../../points.js';
import { METRIC_NAMES, metricFieldType, metricKind, type MetricKind, type MetricName } from './names.js';

export const METRICS_MEASUREMENT = 'cdn_metrics';
export const METRICS_RESOURCE_MEASUREMENT = 'cdn_metrics_resource';

const KIND_TEXT: Record<MetricKind, { description: string; unit: string }> = {
  count: { description: 'requests in the window', unit: 'requests' },
  bandwidth: { description: 'bandwidth over the window', unit: 'bit/s' },
  hit_ratio: { description: 'cached traffic divided by total traffic', unit: 'fraction' },
  hit_bytes: { description: 'bytes returned from cache hits in the window', unit: 'bytes' },
  request_time: { description: 'median load time of 2xx responses in the size range', unit: 's' },
};

function metricField(name: MetricName): FieldSchema {
  const text = KIND_TEXT[metricKind(name)];
  return { type: metricFieldType(name), description: `${name.replace(/_/g, ' ')}: ${text.description}`, unit: text.unit };
}

const METRIC_FIELDS: Record<string, FieldSchema> = Object.fromEntries(METRIC_NAMES.map((n) => [n, metricField(n)]));

/** Field names are the API's metric names; size ranges appear as `<side>_request_time_<range>` (see names.ts). */
export const metricsMeasurements: MeasurementSchema[] = [
  {
    name: METRICS_MEASUREMENT,
    description: 'CDN traffic metrics of an account, one point per window (time = window start)',
    source: 'GET /app/metrics/v1/',
    tags: { account: 'account name' },
    fields: METRIC_FIELDS,
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
  },
];
