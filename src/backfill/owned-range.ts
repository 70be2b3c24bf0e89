import type { Clock } from '../clock.js';
import { planBackfill, type BackfillPlan, type PendingSource } from '../plan/planner.js';
import type { Span } from '../sources/common/types.js';
import { backfillRangeId, changeBackfillRanges, type BackfillRange } from '../state/backfill-ranges.js';

/** The progress of a range is rewritten at most this often (status reads it; the end is always written). */
const PROGRESS_EVERY_MS = 1_000;

export interface OwnedRangeRequest {
  from: number;
  to: number;
  jobs: readonly string[];
  /** The command that resumes the backfill (status shows it). */
  command: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The command that runs (and resumes) the backfill of `range` and `jobs`. */
export function resumeCommand(configPath: string | undefined, range: Span, jobs: readonly string[]): string {
  const config = configPath === undefined ? '' : ` --config ${configPath}`;
  const selection = jobs.map((j) => ` --jobs ${j}`).join('');
  return `cdn-collector backfill${config} --from ${iso(range.from)} --to ${iso(range.to)}${selection}`;
}

/** How many spans of `range` and `jobs` are still pending in `source` (OwnedRange.end's `stillPending`). */
export const pendingIn =
  (source: PendingSource) =>
  (range: Span, jobs: readonly string[]): number =>
    planBackfill(source, range, jobs).spans;

/** How a backfill ended, as its range keeps it: `done` removes the range. */
export type RangeEnd = 'done' | 'cancelled' | 'incomplete';

/**
 * The record of the range a running backfill owns (state/backfill-ranges.ts): written when it starts, its progress as
 * spans are collected, and at its end removed (done) or kept with how it ended, for `backfill` to resume. Record
 * failures are returned to `onError`, never thrown: a backfill does not stop because its progress was not written.
 */
export class OwnedRange {
  private writing: Promise<void> = Promise.resolve();
  private lastWrite = 0;

  private constructor(
    private readonly dir: string,
    private readonly entry: BackfillRange,
    private readonly clock: Clock,
    private readonly onError: (err: unknown) => void,
  ) {}

  /**
   * Records that this process runs the backfill of `request` planned as `plan`. A rerun of the same command continues
   * its entry: the spans of the first plan stay the total, and what is no longer pending counts as done.
   */
  static async start(
    dir: string,
    request: OwnedRangeRequest,
    plan: BackfillPlan,
    clock: Clock,
    onError: (err: unknown) => void,
  ): Promise<OwnedRange> {
    const id = backfillRangeId(request.from, request.to, request.jobs);
    const now = clock.now();
    const { from, to, command } = request;
    const fresh = (kept?: BackfillRange): BackfillRange => {
      const spans = Math.max(kept?.spans ?? 0, plan.spans);
      const startedAt = kept?.startedAt ?? now;
      const done = spans - plan.spans;
      const jobs = [...request.jobs];
      return {
        id,
        from,
        to,
        jobs,
        command,
        spans,
        spansDone: done,
        state: 'running',
        pid: process.pid,
        startedAt,
        updatedAt: now,
      };
    };
    let entry = fresh();
    await changeBackfillRanges(dir, (ranges) => {
      entry = fresh(ranges.find((r) => r.id === id));
      return [...ranges.filter((r) => r.id !== id), entry];
    }).catch(onError);
    return new OwnedRange(dir, entry, clock, onError);
  }
  /** One more span of the range is collected. */
  spanDone(): void {
    this.entry.spansDone = Math.min(this.entry.spans, this.entry.spansDone + 1);
    if (this.clock.now() - this.lastWrite < PROGRESS_EVERY_MS) return;
    this.lastWrite = this.clock.now();
    void this.save();
  }

  /**
   * The backfill ended: a completed one is removed, else kept with how it ended. Ranges of earlier backfills that
   * `stillPending` finds complete now (a later backfill collected them) are removed as well; another entry still
   * `running` is one whose process died (only the lock holder runs backfills).
   */
  async end(how: RangeEnd, stillPending: (range: Span, jobs: readonly string[]) => number): Promise<void> {
    await this.writing;
    const done = how === 'done';
    const now = this.clock.now();
    this.writing = changeBackfillRanges(this.dir, (ranges) =>
      ranges.flatMap((r) => {
        if (r.id === this.entry.id) return done ? [] : [{ ...this.entry, state: how, updatedAt: now }];
        if (stillPending(r, r.jobs) === 0) return [];
        return [r];
      }),
    ).catch(this.onError);
    await this.writing;
  }

  private save(): Promise<void> {
    const entry = { ...this.entry, updatedAt: this.clock.now() };
    this.writing = this.writing
      .then(() => changeBackfillRanges(this.dir, (ranges) => ranges.map((r) => (r.id === entry.id ? entry : r))))
      .catch(this.onError);
    return this.writing;
  }
}
