import { APIS } from '../../spec/apis.js';
import type { Source } from '../source.js';
import { streamstatJobs } from './jobs.js';
import { streamstatMeasurements } from './measurements.js';
import * as settings from './settings.js';

/** Stream view statistics v2: per account and grouping, views and unique users. */
export const streamstatSource = {
  name: 'streamstat',
  descriptor: APIS.streamstat,
  settings,
  measurements: streamstatMeasurements,
  jobsPer: 'accounts',
  jobs: streamstatJobs,
} as const satisfies Source<'streamstat', settings.StreamstatSettings>;
