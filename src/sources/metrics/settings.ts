import { z } from 'zod';
import { duration } from '../../config/fields/duration.js';
import { cronSchedule } from '../../config/fields/fields.js';
import { ParameterError } from '../../errors.js';
import { metricsRule } from '../../plan/windows.js';
import { isMetricName } from '../../spec/metrics.js';
import { MINUTE } from '../../time.js';
import { asField, unique } from '../common/settings.js';

/** `jobs.metrics` (see src/sources/common/settings.ts for what a source's settings module holds). */
export const schema = z
  .object({
    enabled: z.boolean().prefault(true).describe('collect cdn_metrics (and cdn_metrics_resource)'),
    window: duration
      .prefault('10m')
      .describe("window length, 1–10 minutes; where a 422 states a shorter limit, read in calls of the API's limit"),
    delay: duration.prefault('2m').describe('wait after a window closes before reading it'),
    byResource: z.boolean().prefault(true).describe('also collect the per-resource breakdown'),
    metrics: z.array(z.string()).prefault([]).describe('metric names to request; empty = all'),
    schedule: cronSchedule.prefault('*/1 * * * *'),
  })
  .strict()
  .prefault({})
  .describe('short-period traffic metrics (/app/metrics/v1), one call per window');

export type MetricsSettings = z.output<typeof schema>;

export function check(s: MetricsSettings): void {
  asField('window', () => metricsRule(s.window / MINUTE, s.delay));
  s.metrics.forEach((name, i) => {
    if (!isMetricName(name)) throw new ParameterError(`metrics.${i}`, `unknown metric "${name}"`);
  });
  unique('metrics', s.metrics);
}

/** A window is first read `delay` after it closes. */
export function reachMs(s: MetricsSettings): number | undefined {
  return s.enabled ? s.delay + s.window : undefined;
}
