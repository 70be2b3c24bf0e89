/**
 * The spans a pass collects: the one computation behind live passes, gap filling after downtime, backfill plans,
 * progress and the backlog gauge. Pure over the state it is given.
 */
import type { CollectJob, Span } from '../sources/types.js';
import type { CheckpointStore } from '../state/checkpoints.js';
import type { SetAsideStore } from '../state/set-aside.js';
import { mergeSpan, subtractSpans } from '../spans.js';
import { floorTo } from '../time.js';
import { collectableEnd, spans as cutSpans } from './windows.js';

export interface PendingState {
  store: Pick<CheckpointStore, 'confirmed' | 'missing'>;
  aside: Pick<SetAsideStore, 'list' | 'waiting'>;
  /** Gaps older than this are left alone (bounded catch-up after long downtime); a given range is not bounded. */
  horizonMs: number;
  /** Where a job with no checkpoint starts, before its newest collectable window. */
  initialLookbackMs: number;
}

/**
 * What `job` still lacks at `now`, oldest first, cut into calls of at most `maxSpanMs`: from its origin (first
 * confirmed or set-aside span, or `initialLookback` before the newest collectable window; never older than the
 * horizon) — or from `range.from` — to the newest collectable window (capped at `range.to`), minus what is confirmed
 * and minus set-aside spans whose retry is not due. A job without checkpoints reads its current spans. A job with
 * shared keys (several accounts per call) lacks the union of what each key lacks.
 */
export function pendingSpans(job: CollectJob, state: PendingState, now: number, range?: Span): Span[] {
  const { store, aside, horizonMs, initialLookbackMs } = state;
  const rule = job.rule;
  if (!job.checkpointed) {
    if (job.currentSpans) return job.currentSpans(now);
    const from = floorTo(now, rule.stepMs);
    return [{ from, to: from + rule.stepMs }];
  }
  const newest = collectableEnd(rule, now);
  const end = Math.min(newest, range?.to ?? Infinity);
  const firstAside = aside.list(job.key)[0]?.from ?? Infinity;
  // A new key starts `initialLookback` before its newest collectable window (not before now: with a lag as long as
  // the lookback, it would never start); once it has confirmed or set aside a span, the oldest of those fixes its
  // origin (a set-aside first span stays pending for its retry).
  const gapsOf = (key: string): Span[] => {
    const first = Math.min(store.confirmed(key)[0]?.from ?? Infinity, firstAside);
    const origin = range?.from ?? (Number.isFinite(first) ? first : newest - initialLookbackMs);
    const start = floorTo(range ? origin : Math.max(origin, now - horizonMs), rule.stepMs);
    return start < end ? store.missing(key, start, end) : [];
  };
  // A shared job lacks what any of its keys lacks: an account that joins later gets its own lookback read, and keys
  // confirmed by single-account jobs before (checkpoint migration) are neither skipped nor read again where all agree.
  const gaps = job.sharedKeys ? job.sharedKeys().flatMap(gapsOf).reduce<Span[]>(mergeSpan, []) : gapsOf(job.key);
  // Set-aside spans are skipped until their slow retry is due: every pass would otherwise spend a call on each.
  const waiting = aside.waiting(job.key, now);
  return gaps
    .flatMap((gap) => subtractSpans(waiting, gap.from, gap.to))
    .flatMap((gap) => cutSpans(rule, gap.from, gap.to));
}

/**
 * `state` as it will be once `spans` are confirmed as well (for every key): what a pass lacks after a backfill of them.
 * A confirmed span older than a job's origin moves the origin back to it, and no gap is left after the origin.
 */
export function onceConfirmed(state: PendingState, spans: readonly Span[]): PendingState {
  if (spans.length === 0) return state;
  const { store } = state;
  const merged = spans.reduce<Span[]>(mergeSpan, []);
  return {
    ...state,
    store: {
      confirmed: (key) => merged.reduce(mergeSpan, store.confirmed(key)),
      missing: (key, from, to) => store.missing(key, from, to).flatMap((g) => subtractSpans(merged, g.from, g.to)),
    },
  };
}
