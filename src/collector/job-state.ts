import type { JobReading } from '../contracts/job-view.js';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { builtInLagMs, collectableEnd } from '../plan/windows.js';
import type { CollectJob, Span } from '../sources/common/types.js';
import { advanceWatermark, mergeSpan } from '../spans.js';
import type { CheckpointStore } from '../state/checkpoints.js';
import type { SetAsideStore } from '../state/set-aside.js';
import { describeError } from './errors.js';

export interface JobStateDeps {
  store: CheckpointStore;
  aside: SetAsideStore;
  clock: Clock;
  log: Logger;
  /** The spans a pass would collect at `now` (the collector's planning): counted for the backlog, when it is read. */
  pending(job: CollectJob, now: number): Span[];
}

/** A job's backlog is counted again when read this long after its last count (planning every job costs). */
export const BACKLOG_COUNT_EVERY_MS = 60_000;

/**
 * What is known of one job at one instant: what status, /healthz, /metrics and the cdn_collector points show
 * (telemetry reads the JobReading part; a job that is not checkpointed has a backlog of 0, reading the newest window).
 */
export interface JobFacts extends JobReading {
  /** The error of the newest pass, while it failed, and when. */
  lastError?: { error: string; at: number };
  checkpointed: boolean;
  /** The checkpoint keys a job shared by several keys confirms (see CollectJob.sharedKeys). */
  keys?: string[];
}

/** Every job's facts at `at`, sorted by key, and the conditions of the job state (a checkpoint not written). */
export interface JobsSnapshot {
  at: number;
  jobs: JobFacts[];
  conditions: Record<string, string>;
}

interface JobRecord {
  job: CollectJob;
  /** When the job joined (start-up, its account's discovery): a job that never confirmed a span lags from then. */
  joinedAt: number;
  failures: number;
  lastError?: { error: string; at: number };
  /** The last count of the backlog, and when (see BACKLOG_COUNT_EVERY_MS). */
  counted?: { windows: number; at: number };
}

/**
 * The one record of what passes leave behind for each job: confirmed spans (checkpoints), spans set aside, failures,
 * and from them the job's lag and backlog. Passes write it; status, /healthz, /metrics and the log read a snapshot of
 * it when they ask, so they agree.
 */
export class JobState {
  private readonly records = new Map<string, JobRecord>();
  /**
   * Jobs whose last checkpoint could not be written, and why: the condition lasts until each of them wrote one (another
   * job's checkpoint says nothing of a file of its own that cannot be replaced).
   */
  private readonly unwritten = new Map<string, string>();

  constructor(private readonly deps: JobStateDeps) {}

  /** Registers a job (false when its key is known), so it is listed from the start. */
  join(job: CollectJob): boolean {
    if (this.records.has(job.key)) return false;
    this.records.set(job.key, { job, joinedAt: this.deps.clock.now(), failures: 0 });
    return true;
  }

  /**
   * A span of a checkpointed job is collected: its checkpoint is written (for every key it was read for) and a
   * set-aside entry of it leaves the list. A checkpoint that cannot be written (full disk, read-only mount) leaves the
   * span pending — its points are rewritten, idempotently, on a later pass — and turns /healthz 503 until that job's
   * checkpoint is written.
   */
  async collected(job: CollectJob, span: Span): Promise<void> {
    if (!job.checkpointed) return;
    try {
      await Promise.all([job.key, ...(job.sharedKeys?.(span) ?? [])].map((key) => this.deps.store.confirm(key, span)));
    } catch (err) {
      this.unwritten.set(job.key, describeError(err));
      throw err;
    }
    this.unwritten.delete(job.key);
    if ((await this.deps.aside.resolve(job.key, span)) > 0) {
      this.deps.log.info(
        { event: 'set_aside_collected', job: job.key, span: spanText(span) },
        'set-aside span collected on retry',
      );
    }
  }

  /** A pass of `job` ended, on `error` or well: the job's last error and failure count. */
  passEnded(job: CollectJob, error: string | undefined): void {
    const record = this.records.get(job.key);
    if (!record) return;
    if (error === undefined) {
      delete record.lastError;
      return;
    }
    record.failures++;
    record.lastError = { error, at: this.deps.clock.now() };
  }

  /**
   * Sets `span` aside (see SetAsideStore); false when the job's list is full, and then the failure ends the pass like
   * a transient one: the job stops advancing rather than drop or skip data.
   */
  async setAside(job: CollectJob, span: Span, err: unknown): Promise<boolean> {
    const reason = describeError(err);
    const entry = await this.deps.aside.add(job.key, span, reason);
    const { log } = this.deps;
    if (!entry) {
      log.error(
        { job: job.key, span: spanText(span), reason },
        'set-aside list of the job is full: the job stops advancing',
      );
      return false;
    }
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
  lagMs(job: CollectJob, now = this.deps.clock.now()): number {
    if (!job.checkpointed) return 0;
    const handled = this.deps.aside
      .list(job.key)
      .reduce((spans, e) => mergeSpan(spans, e), this.deps.store.confirmed(job.key));
    const joined = this.records.get(job.key)?.joinedAt ?? now;
    const reached = advanceWatermark(handled, this.deps.store.watermark(job.key)) ?? collectableEnd(job.rule, joined);
    return Math.max(0, now - reached);
  }

  /**
   * The windows a checkpointed job still lacks (0 for the others). Planning every job is not free: the count is
   * redone when read at least BACKLOG_COUNT_EVERY_MS after the last one, or when `fresh` asks for it.
   */
  backlog(job: CollectJob, now = this.deps.clock.now(), fresh = false): number {
    if (!job.checkpointed) return 0;
    const record = this.records.get(job.key);
    const counted = record?.counted;
    if (!fresh && counted && now >= counted.at && now - counted.at < BACKLOG_COUNT_EVERY_MS) return counted.windows;
    const windows = this.deps.pending(job, now).length;
    if (record) record.counted = { windows, at: now };
    return windows;
  }

  /** The facts of every job as of `now`, one read for all surfaces. */
  snapshot(now = this.deps.clock.now()): JobsSnapshot {
    const keys = [...this.records.keys()].sort();
    return {
      at: now,
      jobs: keys.map((key) => this.factsOf(this.records.get(key)!, now)),
      conditions: this.conditions(),
    };
  }

  /** The conditions of the job state: checkpoints that could not be written. */
  conditions(): Record<string, string> {
    if (this.unwritten.size === 0) return {};
    const text = [...this.unwritten].map(([key, why]) => `checkpoint of ${key} not written: ${why}`).join('; ');
    return { [CHECKPOINT_CONDITION]: text };
  }

  private factsOf(record: JobRecord, now: number): JobFacts {
    const { job, failures, lastError } = record;
    const keys = job.sharedKeys?.();
    return {
      key: job.key,
      lagMs: this.lagMs(job, now),
      builtInLagMs: builtInLagMs(job.rule),
      backlog: this.backlog(job, now),
      setAside: this.deps.aside.list(job.key).length,
      failures,
      ...(lastError ? { lastError: { ...lastError } } : {}),
      checkpointed: job.checkpointed,
      ...(keys ? { keys: [...keys] } : {}),
    };
  }

  /** Drops set-aside spans older than `before` (the horizon, like the checkpoint's compaction); logs each. */
  async compactSetAside(job: CollectJob, before: number): Promise<void> {
    const dropped = await this.deps.aside.dropBefore(job.key, before);
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
