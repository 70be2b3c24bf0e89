import { APIS } from '../../spec/apis.js';
import type { Source } from '../common/source.js';
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
  // The members of the shared totals job: the accounts found so far join it (see jobs.ts).
  learns: () => new Set<string>(),
  jobs: statisticJobs,
} as const satisfies Source<'statistic', settings.StatisticSettings, Set<string>>;
