import type { CollectorConfig } from '../config/schema.js';
import { dvrJobs } from './dvr/jobs.js';
import { metricsJobs } from './metrics/jobs.js';
import { statisticJobs } from './statistic/jobs.js';
import { streamstatJobs } from './streamstat/jobs.js';
import type { CollectJob, JobFactory } from './types.js';

/** Every source, explicitly: adding an API is one folder and one line here. */
const SOURCES: ReadonlyArray<JobFactory<CollectorConfig>> = [metricsJobs, statisticJobs, streamstatJobs, dvrJobs];

export function buildJobs(config: CollectorConfig): CollectJob[] {
  return SOURCES.flatMap((jobsOf) => jobsOf(config));
}
