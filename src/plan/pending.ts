/**
 * The spans a pass collects: the one computation behind live passes, gap filling after downtime, backfill plans,
 * progress and the backlog gauge. Pure over the state it is given.
 */
import type { CollectJob, Span } from '../contracts/job.js';
import type { CheckpointStore } from '../state/checkpoints.js';
import type { SetAsideStore } from '../state/set-aside.js';
import { mergeSpan, subtractSpans } from '../spans.js';
import { floorTo } from '../time.js';
import { collectableEnd, spans as cutSpans } from './windows.js';

export interface PendingState {
  store: Pick<CheckpointStore, 'confirmed' | 'missing' | 'origin' | 'originLookback'>;
  aside: Pick<SetAsideStore, 'list' | 'waiting'>;
  /** Gaps older than this are left alone (bounded catch-up after long downtime); a given range is not bounded. */
  horizonMs: number;
  /** Where a job with no origin starts, before its newest collectable window. */
  initialLookbackMs: number;
}

/**
 * Where the daemon's gap filling of `key` starts at `now`: its recorded origin (CheckpointStore.origin, moved only by
 * the daemon's passes), or `initialLookback` before the newest collectable window for a new key (not before now: with
 * a lag as long as the lookback, it would never start) — or when the setting was raised since the origin was
 * recorded and so reaches further back (on purpose). A backfill's confirmed spans do not count: the range a backfill
 * asked for is its own, cancelled or not.
 */
export function daemonOrigin(job: CollectJob, state: PendingState, key: string, now: number): number {
  const { store, initialLookbackMs } = state;
  const lookback = floorTo(collectableEnd(job.rule, now) - initialLookbackMs, job.rule.stepMs);
  const recorded = store.origin(key);
  if (recorded === undefined) return lookback;
  const raised = initialLookbackMs > (store.originLookback(key) ?? initialLookbackMs);
  return raised ? Math.min(recorded, lookback) : recorded;
}

/**
 * What `job` still lacks at `now`, oldest first, cut into calls of at most `maxSpanMs`: from its origin (daemonOrigin;
 * never older than the horizon) — or from `range.from` — to the newest collectable window (capped at `range.to`),
 * minus what is confirmed and minus set-aside spans whose retry is not due; set-aside spans older than the origin
 * (a backfill's) are retried alone when due. A job without checkpoints reads its current spans. A job with shared
 * keys (several accounts per call) lacks the union of what each key lacks.
 */
export function pendingSpans(job: CollectJob, state: PendingState, now: number, range?: Span): Span[] {
  const { store, aside, horizonMs } = state;
  const rule = job.rule;
  if (!job.checkpointed) {
    if (job.currentSpans) return job.currentSpans(now);
    const from = floorTo(now, rule.stepMs);
    return [{ from, to: from + rule.stepMs }];
  }
  const newest = collectableEnd(rule, now);
  const end = Math.min(newest, range?.to ?? Infinity);
  const setAside = aside.list(job.key);
  const gapsOf = (key: string): Span[] => {
    const origin = range?.from ?? daemonOrigin(job, state, key, now);
    const start = floorTo(range ? origin : Math.max(origin, now - horizonMs), rule.stepMs);
    const gaps = start < end ? store.missing(key, start, end) : [];
    if (range) return gaps;
    // A span set aside before the origin is owed (its retry was promised); the stretch around it is not.
    const owed = setAside
      .filter((s) => s.from < start && s.from >= now - horizonMs)
      .flatMap((s) => store.missing(key, s.from, Math.min(s.to, start)));
    return [...owed, ...gaps];
  };
  // A shared job lacks what any of its keys lacks: an account that joins later gets its own lookback read, and keys
  // confirmed by single-account jobs before (checkpoint migration) are neither skipped nor read again where all agree.
  const gaps = (job.sharedKeys ? job.sharedKeys() : [job.key]).flatMap(gapsOf).reduce<Span[]>(mergeSpan, []);
  // Set-aside spans are skipped until their slow retry is due: every pass would otherwise spend a call on each.
  const waiting = aside.waiting(job.key, now);
  return gaps
    .flatMap((gap) => subtractSpans(waiting, gap.from, gap.to))
    .flatMap((gap) => cutSpans(rule, gap.from, gap.to));
}
