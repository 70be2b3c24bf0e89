import { z } from 'zod';
import { isMetricName, metricFieldType } from '../../spec/metrics.js';
import { decimal, echo, integer } from '../common/lenient.js';

/**
 * Response bodies of the metrics API (spec 001), strict about what becomes a point and lenient about the rest (see
 * lenient.ts). Metric values are numbers; `null` is accepted too, because a real service plausibly has no value for a
 * median or ratio of nothing (the spec does not show it) — points drop them. Keys that are not known metric names
 * (a metric or an attribute the provider added) are tolerated whatever they hold, and stripped.
 */

/**
 * Known metric names become fields: counts must be integers (a fractional count is a malformed response naming the
 * metric, not a point the line-protocol encoder would have to refuse as a bug), other metrics numbers; either may
 * come as an unambiguous string (lenient.ts).
 */
type MetricValues = Record<string, number | null>;

function metricNumbers(values: Record<string, unknown>, ctx: z.RefinementCtx): MetricValues {
  const out: MetricValues = {};
  for (const [name, raw] of Object.entries(values)) {
    if (!isMetricName(name) || raw === undefined) continue;
    if (raw === null) {
      out[name] = null;
      continue;
    }
    const parsed = (metricFieldType(name) === 'integer' ? integer : decimal).safeParse(raw);
    if (parsed.success) out[name] = parsed.data;
    else
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: parsed.error.issues[0]?.message ?? 'not a number',
      });
  }
  return out;
}

const envelope = {
  /** Part of the structure per spec ("OK" on success); not listed in the field table: any status word or code. */
  status: echo,
  start: z.string(),
  end: z.string(),
  /** Becomes the account tag. */
  account: z.string(),
  /** Names of the returned metrics (an echo; the data hold the values). */
  metrics: z.array(z.string()).optional(),
};

/** `GET /app/metrics/v1/`: data holds one object with a value per returned metric (none when empty). */
export const metricsAggregateSchema = z.object({
  ...envelope,
  data: z.array(z.record(z.string(), z.unknown()).transform(metricNumbers)).max(1),
});

export const metricsResourceElementSchema = z
  .object({
    cname: z.string(),
    resource: z.string(),
    resource_name: z.string(),
  })
  .catchall(z.unknown())
  .transform(
    // The same intersection zod gives `.catchall(number | null)`: the three names are text, every other key a metric.
    ({ cname, resource, resource_name, ...values }, ctx) =>
      ({ ...metricNumbers(values, ctx), cname, resource, resource_name }) as {
        cname: string;
        resource: string;
        resource_name: string;
      } & MetricValues,
  );

/** `GET /app/metrics/v1/resources`: one element per resource. */
export const metricsByResourceSchema = z.object({
  ...envelope,
  data: z.array(metricsResourceElementSchema),
});

export type MetricsAggregateBody = z.infer<typeof metricsAggregateSchema>;
export type MetricsResourceElement = z.infer<typeof metricsResourceElementSchema>;
export type MetricsByResourceBody = z.infer<typeof metricsByResourceSchema>;
