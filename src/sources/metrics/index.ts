import { APIS } from '../../spec/apis.js';
import type { Source } from '../common/source.js';
import { metricsJobs } from './jobs.js';
import { metricsMeasurements } from './measurements.js';
import * as settings from './settings.js';
import { MetricsPeriodLimit } from './window-limit.js';

/** Short-period traffic metrics: per account, one call per 1–10 minute window. */
export const metricsSource = {
  name: 'metrics',
  descriptor: APIS.metrics,
  settings,
  measurements: metricsMeasurements,
  jobsPer: 'accounts',
  // The longest period the service takes, once a 422 stated it; logged once at warn (it contradicts the spec's 10).
  learns: ({ log }) =>
    new MetricsPeriodLimit((limit, reason) =>
      log?.warn(
        { field: 'jobs.metrics.window', limitMinutes: limit, reason },
        `the metrics API takes periods of at most ${limit} min (HTTP 422 "${reason}"): each jobs.metrics.window is ` +
          `read as ${limit}-minute calls from now on, one point per ${limit} min; set jobs.metrics.window: ${limit}m ` +
          'to match it',
      ),
    ),
  jobs: metricsJobs,
} as const satisfies Source<'metrics', settings.MetricsSettings, MetricsPeriodLimit>;
