import { DvrRecordingStore } from '../../state/dvr-recordings.js';
import { SINGLE_CALL } from '../paging.js';
import type { CollectJob } from '../types.js';
import { DvrClient } from './client.js';
import { dvrToPoints, type DvrPointOptions } from './points.js';
import type { DvrSettings } from './settings.js';

/**
 * DVR snapshots: one job per configured stream. DVR state cannot be read for the past, so these jobs are not
 * backfilled; each pass records the state now, stamped with the start of the current interval (idempotent), and
 * each recording at its remembered identity (`options.recordings`, shared by all the streams of a runtime).
 */
export function dvrJobs(c: DvrSettings, options: DvrPointOptions = {}): CollectJob[] {
  if (!c.enabled) return [];
  const recordings = options.recordings ?? new DvrRecordingStore();
  const rule = { stepMs: c.interval, delayMs: 0, maxSpanMs: c.interval };
  return c.streams.map(
    ({ account, stream }): CollectJob => ({
      key: `dvr/${account}/${stream}`,
      api: 'dvr',
      rule,
      checkpointed: false,
      callsFor: () => SINGLE_CALL,
      collect: async (span, http) => {
        const body = await new DvrClient(http).get(account, stream);
        if (options.ranges === false) return dvrToPoints(account, body, span.from, options);
        await recordings.ready();
        const points = dvrToPoints(account, body, span.from, { ...options, recordings });
        // Durable before the points that carry the identities are written.
        await recordings.save();
        return points;
      },
    }),
  );
}
