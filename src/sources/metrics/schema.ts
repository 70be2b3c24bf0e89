import { z } from 'zod';
import { isMetricName, metricFieldType } from '../../spec/metrics.js';

/**
 * Response bodies of the metrics API (spec 001). Metric values are numbers; `null` is accepted too, because a real
 * service plausibly has no value for a median or ratio of nothing (the spec does not show it) — points drop them.
 * Metric keys are not restricted to the known names here, so a metric added by the provider does not break
 * collection; points.ts keeps only the known ones.
 */
const metricValue = z.number().nullable();

/**
 * Count metrics are integer fields in the measurement schema: a fractional count is a malformed response (a typed
 * ResponseFormatError naming the metric), not a point the line-protocol encoder would have to refuse as a bug.
 */
function integerCounts(values: Record<string, number | null>, ctx: z.RefinementCtx): void {
  for (const [name, value] of Object.entries(values)) {
    if (value !== null && isMetricName(name) && metricFieldType(name) === 'integer' && !Number.isInteger(value)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: [name], message: `must be an integer, got ${value}` });
    }
  }
}

const envelope = {
  /** Part of the structure per spec ("OK" on success); not listed in the field table, so not required. */
  status: z.string().optional(),
  start: z.string(),
  end: z.string(),
  account: z.string(),
  /** Names of the returned metrics. */
  metrics: z.array(z.string()),
};

/** `GET /app/metrics/v1/`: data holds one object with a value per returned metric (none when empty). */
export const metricsAggregateSchema = z.object({
  ...envelope,
  data: z.array(z.record(z.string(), metricValue).superRefine(integerCounts)).max(1),
});

export const metricsResourceElementSchema = z
  .object({
    cname: z.string(),
    resource: z.string(),
    resource_name: z.string(),
  })
  .catchall(metricValue)
  .superRefine((element, ctx) => integerCounts(element as Record<string, number | null>, ctx));

/** `GET /app/metrics/v1/resources`: one element per resource. */
export const metricsByResourceSchema = z.object({
  ...envelope,
  data: z.array(metricsResourceElementSchema),
});

export type MetricsAggregateBody = z.infer<typeof metricsAggregateSchema>;
export type MetricsResourceElement = z.infer<typeof metricsResourceElementSchema>;
export type MetricsByResourceBody = z.infer<typeof metricsByResourceSchema>;
