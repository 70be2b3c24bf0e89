import { APIS } from '../../spec/apis.js';
import type { Source } from '../common/source.js';
import { streamstatJobs } from './jobs.js';
import { streamstatMeasurements } from './measurements.js';
import * as settings from './settings.js';
import { StreamstatShape } from './shape.js';

/** Stream view statistics v2: per account and grouping, views and unique users. */
export const streamstatSource = {
  name: 'streamstat',
  descriptor: APIS.streamstat,
  settings,
  measurements: streamstatMeasurements,
  jobsPer: 'accounts',
  // Whether stream views answer in buckets, learnt once for the runtime; logged once at warn (unlike the spec).
  learns: ({ log }) =>
    new StreamstatShape((granularity) =>
      log?.warn(
        { granularity },
        `stream view statistics answer without buckets: reading one call per ${granularity} bucket`,
      ),
    ),
  jobs: streamstatJobs,
} as const satisfies Source<'streamstat', settings.StreamstatSettings, StreamstatShape>;
