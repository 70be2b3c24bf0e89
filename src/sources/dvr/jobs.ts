import { SINGLE_CALL } from '../paging.js';
import type { CollectJob } from '../types.js';
import { DvrClient } from './client.js';
import { dvrToPoints } from './points.js';
import type { DvrSettings } from './settings.js';

/**
 * DVR snapshots: one job per configured stream. DVR state cannot be read for the past, so these jobs are not
 * backfilled; each pass records the state now, stamped with the start of the current interval (idempotent).
 */
export function dvrJobs(c: DvrSettings): CollectJob[] {
  if (!c.enabled) return [];
  const rule = { stepMs: c.interval, delayMs: 0, maxSpanMs: c.interval };
  return c.streams.map(
    ({ account, stream }): CollectJob => ({
      key: `dvr/${account}/${stream}`,
      api: 'dvr',
      rule,
      checkpointed: false,
      callsFor: () => SINGLE_CALL,
      collect: async (span, http) => dvrToPoints(account, await new DvrClient(http).get(account, stream), span.from),
    }),
  );
}
