import { DvrRecordingStore } from '../../state/dvr-recordings.js';
import { scheduleGapMs } from '../../config/fields/schedule-gap.js';
import { floorTo } from '../../time.js';
import { SINGLE_CALL } from '../../paging/walk.js';
import type { CollectJob } from '../common/types.js';
import { DvrClient } from './client.js';
import { dvrToPoints, type DvrPointOptions } from './points.js';
import type { DvrSettings } from './settings.js';
import { DvrRound, dvrTurnsNeeded, type DvrTurnsRule } from './turns.js';

export interface DvrJobOptions extends DvrPointOptions {
  /** The DVR quota (config `quotas.dvr`): when the streams need more snapshots than it allows, they take turns. */
  quota?: DvrTurnsRule['quota'];
}

/**
 * DVR snapshots: one job per configured stream. DVR state cannot be read for the past, so these jobs are not
 * backfilled; each pass records the state now, stamped with the start of the current interval (idempotent), and
 * each recording at its remembered identity (`options.recordings`, shared by all the streams of a runtime).
 * When the streams need more snapshots per interval than `options.quota` allows, each interval reads only the streams
 * whose turn it is (see turns.ts): every stream is read, less often, instead of the first ones winning every queue.
 */
export function dvrJobs(c: DvrSettings, options: DvrJobOptions = {}): CollectJob[] {
  if (!c.enabled) return [];
  const recordings = options.recordings ?? new DvrRecordingStore();
  const rule = { stepMs: c.interval, delayMs: 0, maxSpanMs: c.interval };
  const gap = options.quota && scheduleGapMs(c.schedule);
  const passIntervals = gap === undefined ? 1 : Math.ceil(gap / c.interval);
  const turns: DvrTurnsRule | undefined = options.quota && {
    streams: c.streams.length,
    intervalMs: c.interval,
    quota: options.quota,
    passIntervals,
  };
  const round = turns && dvrTurnsNeeded(turns) ? new DvrRound(turns) : undefined;
  return c.streams.map(
    ({ account, stream }, index): CollectJob => ({
      key: `dvr/${account}/${stream}`,
      api: 'dvr',
      account,
      rule,
      checkpointed: false,
      ...(round && {
        currentSpans: (now: number) => {
          const from = floorTo(now, c.interval);
          return round.isTurn(index, from) ? [{ from, to: from + c.interval }] : [];
        },
      }),
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
