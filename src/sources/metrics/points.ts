import type { Point } from '../../points.js';
import { fieldOfApiKey } from './fields.js';
import { METRICS_MEASUREMENT, METRICS_RESOURCE_MEASUREMENT } from './measurements.js';
import type { MetricsAggregateBody, MetricsByResourceBody, MetricsResourceElement } from './schema.js';

/** One `cdn_metrics` point per window (none when the body has no values). */
export function aggregateToPoints(body: MetricsAggregateBody, windowStartMs: number): Point[] {
  return body.data.flatMap((values) => point(METRICS_MEASUREMENT, { account: body.account }, values, windowStartMs));
}

/** One `cdn_metrics_resource` point per resource and window. */
export function byResourceToPoints(body: MetricsByResourceBody, windowStartMs: number): Point[] {
  return body.data.flatMap((element) => resourceToPoints(body.account, element, windowStartMs));
}

/** The `cdn_metrics_resource` point of one resource of `account` (none when it has no values). */
export function resourceToPoints(account: string, element: MetricsResourceElement, windowStartMs: number): Point[] {
  const tags = { account, resource: element.resource, resource_name: element.resource_name, cname: element.cname };
  return point(METRICS_RESOURCE_MEASUREMENT, tags, element, windowStartMs);
}

function point(
  measurement: string,
  tags: Record<string, string>,
  values: Record<string, unknown>,
  time: number,
): Point[] {
  const fields = metricFields(values);
  if (Object.keys(fields).length === 0) return [];
  return [{ measurement, tags, fields, time }];
}

/**
 * Known metric names with a finite number only, under their field names (fields.ts): null or absent metrics are
 * dropped, never filled in, and names the schema does not know (a metric the provider added) are left out so a point
 * never carries an undeclared field.
 */
function metricFields(values: Record<string, unknown>): Record<string, number> {
  const fields: Record<string, number> = {};
  for (const [key, value] of Object.entries(values)) {
    const field = fieldOfApiKey(key);
    if (field !== undefined && typeof value === 'number' && Number.isFinite(value)) fields[field] = value;
  }
  return fields;
}
