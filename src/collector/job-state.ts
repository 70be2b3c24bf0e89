import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { builtInLagMs, collectableEnd } from '../plan/windows.js';
import type { CollectJob, Span } from '../sources/types.js';
import { advanceWatermark, mergeSpan } from '../spans.js';
import type { CheckpointStore } from '../state/checkpoints.js';
import type { SetAsideStore } from '../state/set-aside.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { describeError } from './errors.js';

export interface JobStateDeps {
  store: CheckpointStore;
  aside: SetAsideStore;
  telemetry: Telemetry;
  clock: Clock;
  log: Logger;
  /** The spans a pass would collect now (the collector's planning). */
  pending(job: CollectJob): Span[];
}

/**
 * What passes leave behind for each job, and the one count of it every surface reads: confirmed spans (checkpoints),
 * spans set aside, and from them the job's lag and backlog, handed to telemetry (status, /healthz, /metrics and the
 * cdn_collector points all read telemetry's record).
 */
export class JobState {
  /** When each job joined (start-up, its account's discovery): a job that never confirmed a span lags from then. */
  private readonly joinedAt = new Map<string, number>();
  /**
   * Jobs whose last checkpoint could not be written, and why: the condition lasts until each of them wrote one (another
   * job's checkpoint says nothing of a file of its own that cannot be replaced).
   */
  private readonly unwritten = new Map<string, string>();

  constructor(private readonly deps: JobStateDeps) {}

  /** Registers a job (false when its key is known) and reports it, so it is listed from the start. */
  join(job: CollectJob): boolean {
    if (this.joinedAt.has(job.key)) return false;
    this.joinedAt.set(job.key, this.deps.clock.now());
    this.deps.telemetry.spansSetAside(job.key, this.deps.aside.list(job.key).length);
    this.report(job);
    return true;
  }

  /**
   * A span of a checkpointed job is collected: its checkpoint is written (for every key it was read for), a set-aside
   * entry of it leaves the list, and the job's lag is reported. A checkpoint that cannot be written (full disk,
   * read-only mount) leaves the span pending — its points are rewritten, idempotently, on a later pass — and turns
   * /healthz 503 until that job's checkpoint is written.
   */
  async collected(job: CollectJob, span: Span): Promise<void> {
    if (!job.checkpointed) return;
    try {
      await Promise.all([job.key, ...(job.sharedKeys?.(span) ?? [])].map((key) => this.deps.store.confirm(key, span)));
    } catch (err) {
      this.unwritten.set(job.key, describeError(err));
      this.reportUnwritten();
      throw err;
    }
    if (this.unwritten.delete(job.key)) this.reportUnwritten();
    if ((await this.deps.aside.resolve(job.key, span)) > 0) {
      this.deps.telemetry.spansSetAside(job.key, this.deps.aside.list(job.key).length);
      this.deps.log.info(
        { event: 'set_aside_collected', job: job.key, span: spanText(span) },
        'set-aside span collected on retry',
      );
    }
    this.reportLag(job);
  }

  private reportUnwritten(): void {
    const text = [...this.unwritten].map(([key, why]) => `checkpoint of ${key} not written: ${why}`).join('; ');
    this.deps.telemetry.condition(CHECKPOINT_CONDITION, text === '' ? undefined : text);
  }

  /**
   * A pass of `job` ended, on `error` or well: the job's last error (status) and failure count, then its lag and
   * backlog (report).
   */
  passEnded(job: CollectJob, error: string | undefined): void {
    if (error === undefined) this.deps.telemetry.jobRecovered(job.key);
    else this.deps.telemetry.jobFailed(job.key, error);
    this.report(job);
  }

  /**
   * Sets `span` aside (see SetAsideStore) and reports it; false when the job's list is full, and then the failure
   * ends the pass like a transient one: the job stops advancing rather than drop or skip data.
   */
  async setAside(job: CollectJob, span: Span, err: unknown): Promise<boolean> {
    const reason = describeError(err);
    const entry = await this.deps.aside.add(job.key, span, reason);
    const { log, telemetry } = this.deps;
    if (!entry) {
      log.error(
        { job: job.key, span: spanText(span), reason },
        'set-aside list of the job is full: the job stops advancing',
      );
      return false;
    }
    telemetry.spansSetAside(job.key, this.deps.aside.list(job.key).length);
    const nextRetryAt = new Date(entry.nextRetryAt).toISOString();
    log.warn(
      { job: job.key, span: spanText(span), reason, attempts: entry.attempts, nextRetryAt },
      'span set aside; later spans go on',
    );
    return true;
  }

  /**
   * Now minus the end of the contiguous prefix of spans that are confirmed or set aside; 0 for snapshot jobs. The
   * checkpoint's watermark itself stops at a set-aside span (it is not collected); lag measures how far collection is
   * behind, and set-aside spans are reported on their own (spans_set_aside, /healthz setAside, `status`). A job that
   * has handled no span yet lags from the start of the first window that fell due after it joined: as far behind as a
   * job that was caught up then, so a job that never collects turns unhealthy like one that stopped.
   */
  lagMs(job: CollectJob): number {
    if (!job.checkpointed) return 0;
    const now = this.deps.clock.now();
    const handled = this.deps.aside
      .list(job.key)
      .reduce((spans, e) => mergeSpan(spans, e), this.deps.store.confirmed(job.key));
    const joined = this.joinedAt.get(job.key) ?? now;
    const reached = advanceWatermark(handled, this.deps.store.watermark(job.key)) ?? collectableEnd(job.rule, joined);
    return Math.max(0, now - reached);
  }

  /**
   * Hands the job's lag to telemetry, the one place /healthz, /metrics and the daemon's report for `status` read it
   * from (it grows with time between reports): at start, after each confirmed span and pass, and once a minute.
   */
  reportLag(job: CollectJob): void {
    this.deps.telemetry.jobLag(job.key, this.lagMs(job), builtInLagMs(job.rule));
  }

  /**
   * The one count of a job's state that every surface reads (status, /healthz, /metrics, the cdn_collector points):
   * its lag, and its backlog — the windows still missing of a checkpointed job (0 for the others, which read the
   * newest window only). Counted when a job joins, after each pass and by the daemon once a minute; the lag also
   * after each confirmed span.
   */
  report(job: CollectJob): void {
    this.reportLag(job);
    this.deps.telemetry.jobBacklog(job.key, job.checkpointed ? this.deps.pending(job).length : 0);
  }

  /** Drops set-aside spans older than `before` (the horizon, like the checkpoint's compaction); logs each. */
  async compactSetAside(job: CollectJob, before: number): Promise<void> {
    const dropped = await this.deps.aside.dropBefore(job.key, before);
    if (dropped.length === 0) return;
    this.deps.telemetry.spansSetAside(job.key, this.deps.aside.list(job.key).length);
    for (const e of dropped) {
      this.deps.log.warn(
        { job: job.key, span: spanText(e), reason: e.reason },
        'set-aside span abandoned: older than the horizon',
      );
    }
  }
}

/** The /healthz condition of checkpoint writes (the quota journal reports its own: `state:quota-journal`). */
export const CHECKPOINT_CONDITION = 'state:checkpoints';

export function spanText(span: Span): string {
  return `${new Date(span.from).toISOString()}/${new Date(span.to).toISOString()}`;
}
