import { APIS } from '../../spec/apis.js';
import type { Source } from '../source.js';
import { dvrJobs } from './jobs.js';
import { dvrMeasurements } from './measurements.js';
import * as settings from './settings.js';

/** DVR state snapshots of the configured streams: the present only (the past cannot be read). */
export const dvrSource = {
  name: 'dvr',
  descriptor: APIS.dvr,
  settings,
  measurements: dvrMeasurements,
  jobsPer: 'settings',
  jobs: (s, ctx) =>
    // DVR ranges are rewritten at each snapshot: not written where the database keeps every sample.
    dvrJobs(s, { recordings: ctx.dvrRecordings, ranges: ctx.overwrites !== false, quota: ctx.quotas?.dvr }),
  // A stream belongs to the shard of its account, so no two instances snapshot the same stream.
  narrow: (s, keep) => ({ ...s, streams: s.streams.filter((stream) => keep(stream.account)) }),
  snapshots: true,
} as const satisfies Source<'dvr', settings.DvrSettings>;
