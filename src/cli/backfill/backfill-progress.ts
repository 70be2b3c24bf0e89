import { Presets, SingleBar } from 'cli-progress';
import type { Logger } from '../../log.js';
import type { ApiName } from '../../spec/apis.js';
import { formatDuration, type BackfillEta } from '../../backfill/eta.js';

export interface ProgressOptions {
  total: number;
  eta: BackfillEta;
  now: () => number;
  /** A bar on stderr when it is a terminal; log lines every 10 s otherwise. */
  tty: boolean;
  log: Logger;
}

/** The backfill's progress: spans done of the plan, calls left, and the ETA under the quotas (refreshed every second).
 * */
export class BackfillProgress {
  private done = 0;
  private readonly bar: SingleBar | undefined;
  private readonly timer: NodeJS.Timeout;
  private lastLog: number;

  constructor(private readonly opts: ProgressOptions) {
    this.bar = opts.tty
      ? new SingleBar(
          { format: 'backfill [{bar}] {value}/{total} spans | {calls} calls left | {estimate}', hideCursor: true },
          Presets.shades_classic,
        )
      : undefined;
    this.bar?.start(opts.total, 0, this.payload());
    this.lastLog = opts.now();
    // The ETA counts down while calls wait for the quota, not only when a span completes.
    this.timer = setInterval(() => this.render(), 1_000);
    this.timer.unref();
  }

  /** A span was confirmed, its `calls` calls of `api` done; `tookMs` its call time when measured. */
  spanDone(api: ApiName, calls: number, tookMs?: number): void {
    this.done++;
    this.opts.eta.completed(api, calls, this.opts.now(), tookMs);
    this.render();
  }

  /** Progress reported by someone else (the daemon running a handed-over backfill). */
  setDone(done: number): void {
    this.done = done;
    this.render();
  }

  /** What the bar shows after `ETA`: e.g. `ETA 9m 20s`; `ETA unknown` before any call when nothing is measured. */
  etaText(): string {
    const left = this.opts.eta.remainingMs(this.opts.now());
    if (this.done >= this.opts.total) return 'finishing';
    return `ETA ${formatDuration(left)}`;
  }

  stop(): void {
    clearInterval(this.timer);
    this.render();
    this.bar?.stop();
  }

  private payload() {
    // Not `eta`: cli-progress fills that token itself, from the spans' rate (the "ETA 0s" while waiting).
    return { calls: this.opts.eta.callsLeft(), estimate: this.etaText() };
  }

  private render(): void {
    if (this.bar) {
      this.bar.update(Math.min(this.done, this.opts.total), this.payload());
      return;
    }
    if (this.opts.now() - this.lastLog < 10_000) return;
    this.lastLog = this.opts.now();
    this.opts.log.info(
      { done: this.done, total: this.opts.total, callsLeft: this.opts.eta.callsLeft(), eta: this.etaText() },
      'backfill progress',
    );
  }
}
