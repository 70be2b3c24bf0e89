import { APIS } from '../../spec/apis.js';
import type { Source } from '../source.js';
import { metricsJobs } from './jobs.js';
import { metricsMeasurements } from './measurements.js';
import * as settings from './settings.js';

/** Short-period traffic metrics: per account, one call per 1–10 minute window. */
export const metricsSource = {
  name: 'metrics',
  descriptor: APIS.metrics,
  settings,
  measurements: metricsMeasurements,
  jobsPer: 'accounts',
  jobs: metricsJobs,
} as const satisfies Source<'metrics', settings.MetricsSettings>;
