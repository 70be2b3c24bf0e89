import { APIS } from '../../spec/apis.js';
import type { Source } from '../source.js';
import { statisticJobs } from './jobs.js';
import { statisticMeasurements } from './measurements.js';
import * as settings from './settings.js';

/** Traffic statistics v3: per account and grouping, spans of final buckets. */
export const statisticSource = {
  name: 'statistic',
  descriptor: APIS.statistic,
  settings,
  measurements: statisticMeasurements,
  jobsPer: 'accounts',
  jobs: statisticJobs,
} as const satisfies Source<'statistic', settings.StatisticSettings>;
