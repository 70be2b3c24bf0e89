import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { HttpClient } from '../http/client.js';
import type { LimiterSet } from '../limit/index.js';
import type { Priority } from '../limit/types.js';
import { onceConfirmed, pendingSpans } from '../plan/pending.js';
import type { Point } from '../points.js';
import { SinkError } from '../sink/errors.js';
import type { Sink } from '../sink/types.js';
import type { CollectJob, Span } from '../sources/types.js';
import type { CheckpointStore } from '../state/checkpoints.js';
import { SetAsideStore } from '../state/set-aside.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { describeError } from './errors.js';
import { isSpanFault } from '../failure.js';
import { writeWithRetry } from './write-retry.js';
import { RefusalReports } from '../telemetry/refusal-reports.js';
import { JobState, spanText } from './job-state.js';

import { LimiterClosedError } from '../limit/errors.js';

export interface CollectorDeps {
  jobs: CollectJob[];
  http: HttpClient;
  limiters: LimiterSet;
  sink: Sink;
  store: CheckpointStore;
  /** Spans set aside for a permanent failure (default: an unsaved list). */
  aside?: SetAsideStore;
  telemetry: Telemetry;
  clock: Clock;
  log: Logger;
  /** Gaps older than this are left alone (bounded catch-up after long downtime). */
  horizonMs: number;
  /** Where a job with no checkpoint starts. */
  initialLookbackMs: number;
  /** How long a span's write is retried through a database outage before the pass gives up (default 60 s). */
  sinkRetryMs?: number;
  /** Named in the error line of points the database refuses (they are kept there). */
  deadLetterPath?: string;
}

export interface PassResult {
  key: string;
  spans: number;
  points: number;
  /** Spans that failed for a permanent reason in this pass and were set aside (the pass went on after them). */
  setAside: number;
  /** Points the database refused for good in the job's writes (dead-lettered). */
  refused?: number;
  /** The error that ended the pass early; the remaining spans stay missing and are retried on the next pass. */
  error?: string;
}

/**
 * Runs jobs: for each, the spans between its origin and the newest collectable window that are not confirmed yet —
 * live windows and gaps alike — oldest first. Records before state: a span is confirmed only after the sink confirmed
 * its points. One failing job or API never stops the others.
 */
export class Collector {
  /** The newest pass of each job that runs or waits to run (each one waits for the one before it). */
  private readonly running = new Map<string, RunningPass>();
  private stopping = false;
  private readonly aside: SetAsideStore;
  /** Checkpoints, set-aside spans, lag and backlog of each job: what a pass leaves behind. */
  private readonly state: JobState;
  /** Grows when accounts are discovered (addJobs); never shrinks while running. */
  private readonly jobList: CollectJob[] = [];
  private readonly refusals: RefusalReports;

  constructor(private readonly deps: CollectorDeps) {
    this.aside = deps.aside ?? SetAsideStore.inMemory(deps.clock);
    this.state = new JobState({ ...deps, aside: this.aside, pending: (job) => this.pending(job) });
    this.refusals = new RefusalReports(deps.telemetry, deps.log, deps.clock, deps.deadLetterPath);
    this.addJobs(deps.jobs);
  }

  get jobs(): readonly CollectJob[] {
    return this.jobList;
  }

  /** Adds jobs whose key is new (the next pass of their API runs them); returns those added. */
  addJobs(jobs: readonly CollectJob[]): CollectJob[] {
    const added: CollectJob[] = [];
    for (const job of jobs) {
      if (!this.state.join(job)) continue;
      added.push(job);
      this.jobList.push(job);
    }
    return added;
  }

  /** One live pass of every job that is not already running (single flight per job). */
  tick(): Promise<PassResult[]> {
    return this.runPass(this.jobList, 'live');
  }

  /**
   * A live or backfill pass of each of `jobs` that has no pass running or waiting (a scheduled pass of one API); the
   * results of those it started. Each pass writes and confirms its own spans (the sink coalesces concurrent writes),
   * and a job still busy (retrying a failing API, a backfill) is left to its pass: one job never delays another.
   */
  runPass(jobs: readonly CollectJob[], priority: Priority): Promise<PassResult[]> {
    return Promise.all(jobs.filter((job) => !this.running.has(job.key)).map((job) => this.enqueue(job, priority, {})));
  }

  /** Resolves once the passes of `jobs` that run or wait now have ended. */
  async settled(jobs: readonly CollectJob[]): Promise<void> {
    await Promise.allSettled(jobs.map((job) => this.running.get(job.key)?.result));
  }

  /**
   * Collects what is missing of `job` in [range.from, range.to) (default: origin … newest collectable window). Single
   * flight per job: a request equal to the job's newest pass (same priority and range, no `onSpan` of its own) shares
   * that pass and its result; any other request waits for it to end, then runs its own pass — it never gets a result
   * about another range or priority. `stop` ends the pass early (see PassStop).
   */
  runOnce(job: CollectJob, priority: Priority, range?: Span, onSpan?: (span: Span) => void, stop: PassStop = {}) {
    const newest = this.running.get(job.key);
    if (newest && !onSpan && newest.priority === priority && sameRange(newest.range, range)) return newest.result;
    const pass = this.enqueue(job, priority, { range, onSpan, ...stop });
    const { signal } = stop;
    if (!signal) return pass;
    // Aborted while an earlier pass of the job still runs (a catch-up can take minutes): the caller is answered at
    // once; the queued pass itself stays in line, so passes of the job still run one at a time, and starts no span.
    const aborted = new Promise<PassResult>((resolve) => {
      const answer = () => resolve({ key: job.key, spans: 0, points: 0, setAside: 0 });
      if (signal.aborted) answer();
      else signal.addEventListener('abort', answer, { once: true });
    });
    return Promise.race([pass, aborted]);
  }

  /** Runs a pass of `job` after its newest one (single flight). */
  private enqueue(job: CollectJob, priority: Priority, how: PassOptions): Promise<PassResult> {
    const newest = this.running.get(job.key);
    const after = newest ? newest.result.then(noop, noop) : Promise.resolve();
    const result = after.then(() => this.passSpans(job, priority, how));
    const entry: RunningPass = { priority, range: how.range, result };
    this.running.set(job.key, entry);
    void entry.result
      .finally(() => {
        if (this.running.get(job.key) === entry) this.running.delete(job.key);
      })
      .catch(noop);
    return entry.result;
  }

  /**
   * The spans a pass would collect at `now` (default: the clock's now), for planning, progress and the missing-window
   * count. A report about a range planned earlier passes the planning time, so windows that only became collectable
   * since then do not count as missing. With `confirmedToo`: what it will collect once those spans are confirmed too.
   */
  pending(job: CollectJob, range?: Span, now = this.deps.clock.now(), confirmedToo: readonly Span[] = []): Span[] {
    return pendingSpans(job, onceConfirmed({ ...this.deps, aside: this.aside }, confirmedToo), now, range);
  }

  /**
   * Fetches span n+1 while span n is being written: API and database latencies overlap instead of adding up. Writes
   * and checkpoint confirmations stay in span order (a write starts once the previous one is confirmed), so a job holds
   * at most two spans' points; a read of several pages hands each page's points over to be written before it reads on
   * (the span's checkpoint still waits for the last), so it holds one answer's, not its span's. A span that fails for a
   * permanent reason (isSpanFault) is set aside and the pass goes on; any other failure ends the pass, and its span and
   * all later ones stay missing.
   */
  private async passSpans(job: CollectJob, priority: Priority, how: PassOptions): Promise<PassResult> {
    const { range, onSpan, shouldStop, signal } = how;
    const result: PassResult = { key: job.key, spans: 0, points: 0, setAside: 0 };
    // The signal takes the pass's calls out of the limiter's queue (and its retries) the moment it aborts.
    const http = this.deps.http.withGate(this.deps.limiters.gate(priority, signal ? { signal } : {}));
    let writing: { span: Span; done: Promise<void> } | undefined;
    let failure: { span: Span; err: unknown; writing?: true } | undefined;
    const settleWrite = async (): Promise<void> => {
      if (!writing) return;
      const { span, done } = writing;
      writing = undefined;
      await done.catch((err: unknown) => (failure ??= { span, err, writing: true }));
    };
    for (const span of this.pending(job, range)) {
      // A backfill's Ctrl-C is asked before every span: at 5 calls/min a pass's remaining spans would take minutes.
      if (this.stopping || shouldStop?.() || signal?.aborted) break;
      let collectError: unknown;
      const writePart = async (part: Point[]) => tally(result, part, await this.writePoints(part, job.key));
      const points = await job.collect(span, http, writePart).catch((err: unknown) => {
        collectError = err;
        return undefined;
      });
      await settleWrite();
      if (failure || (!points && signal?.aborted)) break;
      if (!points) {
        if (job.checkpointed && isSpanFault(collectError) && (await this.state.setAside(job, span, collectError))) {
          result.setAside++;
          continue;
        }
        failure = { span, err: collectError };
        break;
      }
      const done = this.writeSpan(job, span, points).then((refused) => {
        tally(result, points, refused);
        result.spans++;
        onSpan?.(span);
      });
      done.catch(() => {}); // observed by settleWrite
      writing = { span, done };
    }
    await settleWrite();
    if (failure && signal?.aborted) failure = undefined; // its calls were dropped by the abort: stopped, not failed
    if (failure) {
      result.error = describeError(failure.err);
      this.deps.telemetry.jobFailed(job.key, result.error);
      // A graceful stop closes the limiter under the calls still waiting for quota: that is the stop, not a failure.
      const stopped = this.stopping && failure.err instanceof LimiterClosedError;
      // A failed write is the sink's, reported once per run of failures by the runtime's sink, not per job and pass.
      const quiet = stopped || (failure.writing && failure.err instanceof SinkError);
      const fields = { job: job.key, span: spanText(failure.span), err: result.error };
      this.deps.log[quiet ? 'debug' : 'warn'](fields, 'span failed; it stays missing and is retried');
    } else {
      this.deps.telemetry.jobRecovered(job.key);
    }
    this.reportState(job);
    return result;
  }

  /**
   * Records first, state after: the checkpoint moves only once the sink has confirmed the span's points; refused ones
   * (dead-lettered, reported) confirm it too, as rewriting them cannot succeed (docs/faults.md). Returns them.
   */
  private async writeSpan(job: CollectJob, span: Span, points: Point[]): Promise<number> {
    const refused = await this.writePoints(points, job.key);
    if (job.checkpointed) {
      await this.state.confirm(job, span);
      this.reportLag(job);
    }
    this.deps.log.debug({ job: job.key, span: spanText(span), points: points.length }, 'span confirmed');
    await this.state.resolved(job, span);
    return refused;
  }

  /** Writes through a database outage (writeWithRetry); `job` names whose points these are, for the logs. */
  private async writePoints(points: readonly Point[], job: string): Promise<number> {
    const result = await writeWithRetry(this.deps.sink, points, {
      clock: this.deps.clock,
      deadlineMs: this.deps.sinkRetryMs ?? 60_000,
      stopping: () => this.stopping,
      // The runtime's sink reports runs of failed writes (sink-watch.ts): a line per retry would flood the log.
      onRetry: (err, waitMs) => this.deps.log.debug({ job, err: err.message, waitMs }, 'write failed; retrying'),
    });
    return this.refusals.written(result, points, job);
  }

  /** How far behind `job` is (JobState.lagMs). */
  lagMs(job: CollectJob): number {
    return this.state.lagMs(job);
  }

  /** Hands the job's lag to telemetry (after a confirmed span). */
  reportLag(job: CollectJob): void {
    this.state.reportLag(job);
  }

  /** The one count of a job's state that every surface reads: lag and backlog (JobState.report). */
  reportState(job: CollectJob): void {
    this.state.report(job);
  }

  /** Drops set-aside spans older than `before` (the horizon, like the checkpoint's compaction). */
  compactSetAside(job: CollectJob, before: number): Promise<void> {
    return this.state.compactSetAside(job, before);
  }

  /** Graceful stop: no new spans start; in-flight spans finish and are confirmed. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled([...this.running.values()].map((p) => p.result));
  }
}

/**
 * What ends a pass before its last span: `shouldStop`, asked before each span (spans under way finish and are
 * confirmed), and `signal`, which also drops the pass's calls waiting for a quota slot or a retry (a cancelled backfill
 * must not wait behind a catch-up's live calls).
 */
export interface PassStop {
  shouldStop?: (() => boolean) | undefined;
  signal?: AbortSignal | undefined;
}

/** How one pass runs: over `range` (default: what the job lacks), reporting each span, until it is stopped. */
interface PassOptions extends PassStop {
  range?: Span | undefined;
  onSpan?: ((span: Span) => void) | undefined;
}

interface RunningPass {
  priority: Priority;
  range: Span | undefined;
  result: Promise<PassResult>;
}

function sameRange(a: Span | undefined, b: Span | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.from === b.from && a.to === b.to);
}

function noop(): void {}

/** Counts points the sink confirmed into the pass's result, and those of them it refused. */
function tally(result: PassResult, points: readonly Point[], refused: number): void {
  if (refused > 0) result.refused = (result.refused ?? 0) + refused;
  result.points += points.length;
}
