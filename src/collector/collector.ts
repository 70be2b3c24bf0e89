import pLimit, { type LimitFunction } from 'p-limit';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { whenAborted } from '../abort.js';
import type { HttpClient } from '../http/client.js';
import type { LimiterSet } from '../limit/index.js';
import type { Priority } from '../limit/types.js';
import { daemonOrigin, pendingSpans, type PendingState } from '../plan/pending.js';
import { retryingSink } from '../sink/retrying.js';
import { DEFAULT_WRITE_RETRY_MS, type Sink } from '../sink/types.js';
import type { AccountStanding } from '../sources/common/account-standing.js';
import type { ApiName } from '../spec/apis.js';
import type { CollectJob, Span } from '../sources/common/types.js';
import type { CheckpointStore } from '../state/checkpoints.js';
import { SetAsideStore } from '../state/set-aside.js';
import { JobState } from './job-state.js';
import { type PassResult, passResult, runPass } from './pass.js';
import { silentWriteReports, type WriteReports } from './reports.js';
import { noCounts, type OutputDeps, type PassCounts } from './span-output.js';

export type { PassResult } from './pass.js';

export interface CollectorDeps {
  jobs: CollectJob[];
  http: HttpClient;
  limiters: LimiterSet;
  sink: Sink;
  store: CheckpointStore;
  /** Spans set aside for a permanent failure (default: an unsaved list). */
  aside?: SetAsideStore;
  /** Told of each confirmed write, to report points the database refused (default: counted, not reported). */
  writes?: WriteReports;
  clock: Clock;
  log: Logger;
  /** Gaps older than this are left alone (bounded catch-up after long downtime). */
  horizonMs: number;
  /** Where a job with no checkpoint starts. */
  initialLookbackMs: number;
  /** How long a span's write is retried through a database outage before the pass gives up (`output.retryFor`). */
  sinkRetryMs?: number;
  /** Told when an API refuses a job's account or answers for it (see AccountStanding). */
  accounts?: AccountStanding;
  /**
   * At most this many passes of an API started by runPass run at once, each for a turn of a few spans; the others wait
   * their turn holding nothing but their job, not a plan, a client or a call queued in the limiter (default: no
   * bound). The runtime gives one quota period's calls: a pass has one call waiting at a time, so what the limiter
   * holds is sent within about a period.
   */
  passesAtOnce?: (api: ApiName) => number;
}

/** Spans a pass of runPass collects in one turn (see CollectorDeps.passesAtOnce) before the next job's turn. */
const SPANS_PER_TURN = 4;

/**
 * Runs jobs: for each, the spans between its origin and the newest collectable window that are not confirmed yet —
 * live windows and gaps alike — oldest first. Records before state: a span is confirmed only after the sink confirmed
 * its points. One failing job or API never stops the others.
 */
export class Collector {
  /** The newest pass of each job that runs or waits to run (each one waits for the one before it). */
  private readonly running = new Map<string, RunningPass>();
  /** Aborted by stop(): no span starts, and a write retried through an outage gives up at once. */
  private readonly stopper = new AbortController();
  private readonly aside: SetAsideStore;
  /**
   * Checkpoints, set-aside spans, failures, lag and backlog of each job: what passes leave behind, the one record that
   * status, /healthz, /metrics and the points read (JobState.snapshot).
   */
  readonly state: JobState;
  /** Grows when accounts are discovered (addJobs); never shrinks while running. */
  private readonly jobList: CollectJob[] = [];
  /** Where every pass's points go and what confirms them (SpanOutput). */
  private readonly output: OutputDeps;
  /** The turns of runPass's passes, per API and priority (see CollectorDeps.passesAtOnce). */
  private readonly turns = new Map<string, LimitFunction>();

  constructor(private readonly deps: CollectorDeps) {
    this.aside = deps.aside ?? SetAsideStore.inMemory(deps.clock);
    this.state = new JobState({ ...deps, aside: this.aside, pending: (job, now) => this.pending(job, undefined, now) });
    this.output = {
      ...deps,
      state: this.state,
      sink: retryingSink(deps.sink, {
        clock: deps.clock,
        deadlineMs: deps.sinkRetryMs ?? DEFAULT_WRITE_RETRY_MS,
        stop: this.stopper.signal,
        // The runtime's sink reports runs of failed writes (sink-watch.ts): a line per retry would flood the log.
        onRetry: (err, waitMs) =>
          deps.log.debug({ event: 'sink_write_retry', err: err.message, waitMs }, 'write failed; retrying'),
      }),
      writes: deps.writes ?? silentWriteReports,
      stop: this.stopper.signal,
    };
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
    const idle = jobs.filter((job) => !this.running.has(job.key));
    return Promise.all(idle.map((job) => this.enqueue(job, priority, {}, this.turnsOf(job.api, priority))));
  }

  /** Where runPass's passes of `api` wait their turn, or undefined when they all start at once. */
  private turnsOf(api: ApiName, priority: Priority): LimitFunction | undefined {
    const key = `${api}/${priority}`;
    let turns = this.turns.get(key);
    const bound = this.deps.passesAtOnce?.(api);
    if (!turns && bound !== undefined && Number.isFinite(bound)) this.turns.set(key, (turns = pLimit(bound)));
    return turns;
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
    const counts = noCounts();
    const pass = this.enqueue(job, priority, { range, onSpan, counts, ...stop });
    const { signal } = stop;
    if (!signal) return pass;
    // Aborted while an earlier pass of the job still runs (a catch-up can take minutes), or while a call of its own is
    // in flight: the caller is answered at once with what the pass did so far; the pass itself stays in line, so
    // passes of the job still run one at a time, and starts no span.
    if (signal.aborted) return Promise.resolve(passResult(job.key, { ...counts }));
    let stopListening = () => {};
    const aborted = new Promise<PassResult>((resolve) => {
      stopListening = whenAborted(signal, () => resolve(passResult(job.key, { ...counts })));
    });
    // A pass that ends without the abort stops listening: a backfill's signal serves pass after pass.
    return Promise.race([pass, aborted]).finally(stopListening);
  }

  /** Runs a pass of `job` after its newest one (single flight), when `turns` (if any) gives it its turn. */
  private enqueue(job: CollectJob, priority: Priority, how: PassOptions, turns?: LimitFunction): Promise<PassResult> {
    const newest = this.running.get(job.key);
    const after = newest ? newest.result.then(noop, noop) : Promise.resolve();
    const result = after.then(() =>
      turns ? this.passInTurns(job, priority, how, turns) : this.passSpans(job, priority, how),
    );
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
   * A pass that takes turns: SPANS_PER_TURN spans a turn, then back to the end of the line while spans are left, so a
   * long catch-up alternates with the other jobs' live windows instead of holding its turn to the end. Between turns
   * the job holds nothing; each turn plans what is still pending. One result for the whole pass.
   */
  private async passInTurns(job: CollectJob, priority: Priority, how: PassOptions, turns: LimitFunction) {
    const counts = how.counts ?? noCounts();
    for (;;) {
      let asked = 0;
      const turn = { ...how, counts, shouldStop: () => how.shouldStop?.() === true || asked++ >= SPANS_PER_TURN };
      // A turn that comes after the stop never starts: it plans nothing and leaves the job's record alone.
      const result = await turns(() => (this.stopper.signal.aborted ? undefined : this.passSpans(job, priority, turn)));
      if (!result || result.error !== undefined || asked <= SPANS_PER_TURN)
        return result ?? passResult(job.key, counts);
    }
  }

  /**
   * The spans a pass would collect at `now` (default: the clock's now), for planning, progress and the missing-window
   * count. A report about a range planned earlier passes the planning time, so windows that only became collectable
   * since then do not count as missing.
   */
  pending(job: CollectJob, range?: Span, now = this.deps.clock.now()): Span[] {
    return pendingSpans(job, this.pendingState(), now, range);
  }

  private pendingState(): PendingState {
    return { ...this.deps, aside: this.aside };
  }

  /** A pass of `job` (pass.ts): its pending spans through a client gated at `priority`, into the sink. */
  private passSpans(job: CollectJob, priority: Priority, how: PassOptions): Promise<PassResult> {
    const { range, onSpan, shouldStop, signal, counts } = how;
    if (!range) this.keepOrigin(job);
    // The signal takes the pass's calls out of the limiter's queue (and its retries) the moment it aborts.
    const http = this.deps.http.withGate(this.deps.limiters.gate(priority, signal ? { signal } : {}));
    // A backfill's Ctrl-C is asked before every span: at 5 calls/min a pass's remaining spans would take minutes.
    const stopped = () => this.stopper.signal.aborted || shouldStop?.() === true || signal?.aborted === true;
    return runPass(job, { spans: this.pending(job, range), http, stopped, signal, onSpan, counts }, this.output);
  }

  /**
   * A pass of the daemon's own (no range) records where its gap filling starts, so that later passes start there and
   * not at whatever a backfill confirmed. Not waited for: the pass computes the same origin, and its confirmations
   * queue behind the write. Unrecorded (a state write failing), the next pass records it.
   */
  private keepOrigin(job: CollectJob): void {
    if (!job.checkpointed) return;
    const { store, clock, log, initialLookbackMs: lookback } = this.deps;
    const state = this.pendingState();
    for (const key of job.sharedKeys ? job.sharedKeys() : [job.key]) {
      const origin = daemonOrigin(job, state, key, clock.now());
      if (origin === store.origin(key) && lookback === store.originLookback(key)) continue;
      const notRecorded = (err: unknown) => log.warn({ job: key, err: String(err) }, 'origin not recorded');
      store.setOrigin(key, origin, lookback).catch(notRecorded);
    }
  }

  /**
   * Graceful stop: no new spans start; in-flight spans finish and are confirmed, but a write retried through a
   * database outage gives up at once (its span stays unconfirmed, collected by the next run).
   */
  async stop(): Promise<void> {
    this.stopper.abort();
    await Promise.allSettled([...this.running.values()].map((p) => p.result));
  }

  /** Whether stop() was called: passes that end now end because of it. */
  get stopping(): boolean {
    return this.stopper.signal.aborted;
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
  counts?: PassCounts | undefined;
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
