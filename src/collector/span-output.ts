import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Point } from '../points.js';
import type { AccountStanding } from '../sources/common/account-standing.js';
import type { Sink } from '../sink/types.js';
import type { CollectJob, PointsHandOff, Span } from '../sources/common/types.js';
import type { JobState } from './job-state.js';
import { spanText } from './job-state.js';
import type { WriteReports } from './reports.js';

/** Where a pass's points go, and what confirms them: the same for every pass of a collector. */
export interface OutputDeps {
  /** Retries a write through a database outage itself (sink/retrying.ts): a write that throws ends the pass. */
  sink: Sink;
  state: JobState;
  /** Reports the points the database refused for good. */
  writes: WriteReports;
  clock: Clock;
  log: Logger;
  /** A graceful stop: calls dropped by it end a pass quietly (the sink's retries give up at it too). */
  stop: AbortSignal;
  /** Told when an API refuses a job's account, or answers for it (the runtime's; absent: not tracked). */
  accounts?: AccountStanding | undefined;
}

/** What one pass of a job did so far: spans confirmed, points written, refused ones among them, spans set aside. */
export interface PassCounts {
  spans: number;
  points: number;
  refused: number;
  setAside: number;
}

export const noCounts = (): PassCounts => ({ spans: 0, points: 0, refused: 0, setAside: 0 });

/**
 * The accumulator and output of one pass of one job: takes the points the job gathers, writes them in span order, and
 * confirms a span only once the sink has confirmed its points (records before state). One span is written while the
 * next is gathered; a span's write starts once the previous span is confirmed, so a job holds at most two spans'
 * points (one answer's, where a read of several pages hands each page over as it comes).
 */
export class SpanOutput {
  /** The write that ended the pass: its span stays missing. */
  failure: { span: Span; err: unknown } | undefined;
  private writing: { span: Span; done: Promise<void>; points: number } | undefined;

  constructor(
    private readonly job: CollectJob,
    private readonly deps: OutputDeps,
    private readonly onSpan?: (span: Span) => void,
    /** Counted as the pass goes (a caller answered before the pass ends reads them). */
    readonly counts: PassCounts = noCounts(),
  ) {}

  /**
   * Takes the parts of `span`'s points handed over while the span is read on (PointsHandOff): each is written before
   * the read goes on. A part that cannot be written is a failed write of the span, as its rest would be: it becomes
   * the pass's `failure` (never the span's own fault, to set aside) and ends the read.
   */
  handOff(span: Span): PointsHandOff {
    return async (points) => {
      try {
        this.count(points, await this.write(points));
      } catch (err) {
        this.failure ??= { span, err };
        throw err;
      }
    };
  }

  /** The rest of `span`'s points: written after the span before it, then the span is confirmed. */
  add(span: Span, points: Point[]): void {
    const done = this.writeSpan(span, points);
    done.catch(() => {}); // observed by settle()
    this.writing = { span, done, points: points.length };
  }

  /** The points of the span being written (0 when none is). */
  get writingPoints(): number {
    return this.writing?.points ?? 0;
  }

  /** Waits for the span being written; a failed write becomes the pass's `failure`. */
  async settle(): Promise<void> {
    if (!this.writing) return;
    const { span, done } = this.writing;
    this.writing = undefined;
    await done.catch((err: unknown) => (this.failure ??= { span, err }));
  }

  private async writeSpan(span: Span, points: Point[]): Promise<void> {
    // Written, and counted, whether or not the checkpoint that confirms them can be written.
    this.count(points, await this.write(points));
    await this.deps.state.collected(this.job, span);
    const fields = { event: 'span_confirmed', job: this.job.key, span: spanText(span), points: points.length };
    this.deps.log.debug(fields, 'span confirmed');
    this.counts.spans++;
    this.onSpan?.(span);
  }

  /** Writes the points; returns how many of them the database refused for good. */
  private async write(points: readonly Point[]): Promise<number> {
    const result = await this.deps.sink.write(points);
    return this.deps.writes.written(result, points, this.job.key);
  }

  private count(points: readonly Point[], refused: number): void {
    this.counts.points += points.length;
    this.counts.refused += refused;
  }
}
