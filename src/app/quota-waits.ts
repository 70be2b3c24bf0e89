import type { LimiterSet } from '../limit/index.js';
import type { LimiterEvent } from '../limit/types.js';
import { callsOf, estimateDuration } from '../plan/planner.js';
import { API_NAMES, type ApiName } from '../spec/apis.js';
import { formatDuration } from '../backfill/eta.js';
import type { Collector } from '../collector/collector.js';
import type { Runtime } from './runtime.js';

/** One API whose calls wait for quota: calls done of those planned and the time left under its quota. */
export interface QuotaWait {
  api: ApiName;
  done: number;
  planned?: number;
  leftMs: number;
}

/** A line about one waiting API (e.g. to stderr, or the daemon's log with its fields). */
export type QuotaWaitReport = (line: string, fields: QuotaWait) => void;

/**
 * What a command's calls wait for (minutes at start-up, when an earlier process spent the window): per API, calls
 * done of those planned and the time left under its quota, from the limiter's own queue and window. Feed it the
 * limiter's events (`observe`).
 */
export class QuotaWaits {
  private readonly done = new Map<ApiName, number>();

  constructor(
    private readonly limiters: LimiterSet,
    /** Calls planned per API (the least a plan knows of); an API without a plan is shown as calls done so far. */
    private readonly planned: Partial<Record<ApiName, number>>,
  ) {}

  /** A limiter event: every attempt that finished counts as a call done. */
  observe(event: LimiterEvent): void {
    if (event.type === 'call') this.done.set(event.api, (this.done.get(event.api) ?? 0) + 1);
  }

  /** Calls done so far, of every API. */
  doneTotal(): number {
    return [...this.done.values()].reduce((a, b) => a + b, 0);
  }

  /** Calls planned of every API (those done where more were done than planned). */
  plannedTotal(): number {
    return API_NAMES.reduce((n, api) => n + Math.max(this.planned[api] ?? 0, this.done.get(api) ?? 0), 0);
  }

  /** The APIs whose calls wait in their limiter's queue now, with what they show. */
  waiting(): QuotaWait[] {
    return API_NAMES.flatMap((api) => {
      const snap = this.limiters.get(api).snapshot();
      if (snap.queued === 0) return [];
      const done = this.done.get(api) ?? 0;
      const plan = this.planned[api];
      const planned = plan === undefined ? undefined : Math.max(plan, done + snap.queued + snap.inFlight);
      const left = planned === undefined ? snap.queued : planned - done - snap.inFlight;
      const wait = Number.isFinite(snap.nextSlotInMs) ? snap.nextSlotInMs : 0;
      return [
        {
          api,
          done,
          ...(planned === undefined ? {} : { planned }),
          // Whole milliseconds: a JSON log line carries `leftMs: 101200`, not the float the estimate comes out as.
          leftMs: Math.round(wait + estimateDuration(left, this.limiters.get(api).quota)),
        },
      ];
    });
  }
}

/** The parts of a runtime whose calls are watched. */
export type QuotaWatched = Pick<Runtime, 'limiters' | 'config' | 'onLimiterEvent'>;

/** QuotaWaits fed with `rt`'s limiter events until `stop()`. */
export function watchQuotaWaits(
  rt: QuotaWatched,
  planned: Partial<Record<ApiName, number>>,
): { waits: QuotaWaits; stop(): void } {
  const waits = new QuotaWaits(rt.limiters, planned);
  const unsubscribe = rt.onLimiterEvent((e) => waits.observe(e));
  return { waits, stop: unsubscribe };
}

/**
 * While `rt`'s calls wait for quota, a line per waiting API every `log.progressEvery` to `report` (stderr when not a
 * terminal, the daemon's log), until `stop()`.
 */
export function reportQuotaWaits(
  rt: QuotaWatched,
  planned: Partial<Record<ApiName, number>>,
  report: QuotaWaitReport,
): { stop(): void } {
  const watched = watchQuotaWaits(rt, planned);
  const timer = setInterval(() => {
    for (const w of watched.waits.waiting()) report(progressLine(w), w);
  }, rt.config.log.progressEvery);
  timer.unref();
  return {
    stop() {
      watched.stop();
      clearInterval(timer);
    },
  };
}

/** The least calls per API of one pass of every job of `collector` now (what `run --once` and a start-up pass make). */
export function passCalls(collector: Pick<Collector, 'jobs' | 'pending'>): Partial<Record<ApiName, number>> {
  return callsOf(collector.jobs.map((job) => ({ job, spans: collector.pending(job) }))).calls;
}

/** `statistic: waiting for quota, 4 of 11 calls done, ~50s left`. */
export function progressLine(w: QuotaWait): string {
  const count = w.planned === undefined ? `${w.done} calls done` : `${w.done} of ${w.planned} calls done`;
  return `${w.api}: waiting for quota, ${count}, ~${formatDuration(w.leftMs)} left`;
}
