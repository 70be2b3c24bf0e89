import { streamstatRule } from '../../plan/windows.js';
import type { CollectJob, JobContext } from '../types.js';
import { StreamstatClient } from './client.js';
import { viewsCalls, readViews } from './read.js';
import { stepMs, type StreamstatSettings } from './settings.js';
import { StreamstatShape } from './shape.js';

/**
 * Stream views: one job per account and grouping. A call covers a whole span of buckets (`granularity` set), so a
 * day of 5-minute buckets costs one call, not 288, within the 30 calls/min — unless the service answers without
 * buckets (see read.ts): then every job of the context reads one call per bucket.
 */
/** `language` only when configured: no tag or field of stream views depends on it. */
export function streamstatJobs(c: StreamstatSettings, { accounts, language, pageSize, streamstatShape }: JobContext): CollectJob[] {
  if (!c.enabled) return [];
  const rule = streamstatRule(stepMs(c), c.lag, c.span);
  const shape = streamstatShape ?? new StreamstatShape();
  return accounts.flatMap((account) =>
    c.groupings.map((grouping): CollectJob => {
      const read = { account, grouping, granularity: c.granularity, pageSize, shape };
      return {
        key: `streamstat/${account}/${grouping}`,
        api: 'streamstat',
        rule,
        checkpointed: true,
        callsFor: (span) => viewsCalls(read, span),
        collect: (span, http) => readViews({ ...read, http, client: new StreamstatClient(http, language ? { language } : {}) }, span),
      };
    }),
  );
}
