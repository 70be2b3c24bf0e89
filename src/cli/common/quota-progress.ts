import { createRequire } from 'node:module';
import type * as CliProgress from 'cli-progress';
import type { LimiterSet } from '../../limit/index.js';
import type { LimiterEvent } from '../../limit/types.js';
import { callsOf, estimateDuration } from '../../plan/planner.js';
import { API_NAMES, type ApiName } from '../../spec/apis.js';
import { formatDuration } from '../../backfill/eta.js';
import type { Collector } from '../../collector/collector.js';
import type { Runtime } from '../../app/runtime.js';

export interface QuotaProgressOptions {
  limiters: LimiterSet;
  /** Calls planned per API (the least a plan knows of); an API without a plan is shown as calls done so far. */
  planned: Partial<Record<ApiName, number>>;
  /** A bar on stderr when it is a terminal; otherwise `report` every `everyMs` while calls wait. */
  tty: boolean;
  everyMs: number;
  /** One line about one waiting API (e.g. to stderr, or the daemon's log with its fields). */
  report: (line: string, fields: { api: ApiName; done: number; planned?: number; leftMs: number }) => void;
}

/**
 * What a command does while its calls wait for quota (minutes at start-up, when an earlier process spent the window):
 * per API, calls done of those planned and the time left under its quota, from the limiter's own queue and window.
 * Feed it the limiter's events (`observe`); `stop` when the work is done.
 */
export class QuotaProgress {
  private readonly done = new Map<ApiName, number>();
  private readonly timer: NodeJS.Timeout;
  private bar: CliProgress.SingleBar | undefined;

  constructor(private readonly opts: QuotaProgressOptions) {
    this.timer = setInterval(() => this.render(), opts.tty ? 1_000 : opts.everyMs);
    this.timer.unref();
  }

  /** A limiter event: every attempt that finished counts as a call done. */
  observe(event: LimiterEvent): void {
    if (event.type === 'call') this.done.set(event.api, (this.done.get(event.api) ?? 0) + 1);
  }

  stop(): void {
    clearInterval(this.timer);
    this.bar?.stop();
  }

  /** The APIs whose calls wait in their limiter's queue now, with what they show. */
  waiting(): Array<{ api: ApiName; done: number; planned?: number; leftMs: number }> {
    return API_NAMES.flatMap((api) => {
      const snap = this.opts.limiters.get(api).snapshot();
      if (snap.queued === 0) return [];
      const done = this.done.get(api) ?? 0;
      const plan = this.opts.planned[api];
      const planned = plan === undefined ? undefined : Math.max(plan, done + snap.queued + snap.inFlight);
      const left = planned === undefined ? snap.queued : planned - done - snap.inFlight;
      const wait = Number.isFinite(snap.nextSlotInMs) ? snap.nextSlotInMs : 0;
      return [
        {
          api,
          done,
          ...(planned === undefined ? {} : { planned }),
          // Whole milliseconds: a JSON log line carries `leftMs: 101200`, not the float the estimate comes out as.
          leftMs: Math.round(wait + estimateDuration(left, this.opts.limiters.get(api).quota)),
        },
      ];
    });
  }

  private render(): void {
    const waiting = this.waiting();
    if (this.opts.tty) {
      this.renderBar(waiting);
      return;
    }
    for (const w of waiting) this.opts.report(progressLine(w), w);
  }

  private renderBar(waiting: ReturnType<QuotaProgress['waiting']>): void {
    if (!this.bar && waiting.length === 0) return;
    const total = API_NAMES.reduce((n, api) => n + Math.max(this.opts.planned[api] ?? 0, this.done.get(api) ?? 0), 0);
    const done = [...this.done.values()].reduce((a, b) => a + b, 0);
    const text =
      waiting.length === 0
        ? 'calling'
        : `waiting for quota: ${waiting.map((w) => `${w.api} ~${formatDuration(w.leftMs)}`).join(', ')}`;
    if (!this.bar) {
      // Loaded for a terminal only: a daemon or a piped run never draws a bar.
      const { Presets, SingleBar } = createRequire(import.meta.url)('cli-progress') as typeof CliProgress;
      this.bar = new SingleBar(
        { format: 'calls [{bar}] {value}/{total} | {text}', hideCursor: true },
        Presets.shades_classic,
      );
      this.bar.start(total, done, { text });
    } else this.bar.update(done, { text });
    this.bar.setTotal(Math.max(total, done));
  }
}

/**
 * Progress of `rt`'s calls until `stop()`: a bar on a terminal, else a line every `log.progressEvery` to stderr (or to
 * `report`, e.g. the daemon's log).
 */
export function showQuotaProgress(
  rt: Pick<Runtime, 'limiters' | 'config' | 'onLimiterEvent'>,
  planned: Partial<Record<ApiName, number>>,
  report: QuotaProgressOptions['report'] = (line) => process.stderr.write(`${line}\n`),
  tty = process.stderr.isTTY === true,
): { stop(): void } {
  const progress = new QuotaProgress({
    limiters: rt.limiters,
    planned,
    tty,
    everyMs: rt.config.log.progressEvery,
    report,
  });
  const unsubscribe = rt.onLimiterEvent((e) => progress.observe(e));
  return {
    stop() {
      unsubscribe();
      progress.stop();
    },
  };
}

/** The least calls per API of one pass of every job of `collector` now (what `run --once` and a start-up pass make). */
export function passCalls(collector: Pick<Collector, 'jobs' | 'pending'>): Partial<Record<ApiName, number>> {
  return callsOf(collector.jobs.map((job) => ({ job, spans: collector.pending(job) }))).calls;
}

/** `statistic: waiting for quota, 4 of 11 calls done, ~50s left`. */
export function progressLine(w: { api: ApiName; done: number; planned?: number; leftMs: number }): string {
  const count = w.planned === undefined ? `${w.done} calls done` : `${w.done} of ${w.planned} calls done`;
  return `${w.api}: waiting for quota, ${count}, ~${formatDuration(w.leftMs)} left`;
}
