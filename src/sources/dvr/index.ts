import { APIS } from '../../spec/apis.js';
import type { Source } from '../common/source.js';
import { dvrJobs } from './jobs.js';
import { dvrMeasurements } from './measurements.js';
import { DvrRecordingStore } from '../../state/dvr-recordings.js';
import * as settings from './settings.js';

/** DVR state snapshots of the configured streams: the present only (the past cannot be read). */
export const dvrSource = {
  name: 'dvr',
  descriptor: APIS.dvr,
  settings,
  measurements: dvrMeasurements,
  jobsPer: 'settings',
  // Recordings' identities across snapshots (and restarts, with a state dir), shared by every stream of the runtime.
  learns: ({ log, stateDir }) =>
    new DvrRecordingStore({
      dir: stateDir,
      onProblem: (problem) =>
        log?.warn({ problem }, 'DVR recording identities lost: recordings cut by the DVR window get a new row'),
    }),
  jobs: (s, ctx, recordings) =>
    // DVR ranges are rewritten at each snapshot: not written where the database keeps every sample.
    dvrJobs(s, { recordings, ranges: ctx.overwrites !== false, quota: ctx.quotas?.dvr }),
  // A stream belongs to the shard of its account, so no two instances snapshot the same stream.
  narrow: (s, keep) => ({ ...s, streams: s.streams.filter((stream) => keep(stream.account)) }),
  snapshots: true,
} as const satisfies Source<'dvr', settings.DvrSettings, DvrRecordingStore>;
