import { intervalClock, systemClock, type Clock } from '../clock.js';
import { classify, type Failure } from '../failure.js';
import { whenAborted } from '../abort.js';
import type { ApiName } from '../spec/apis.js';
import { DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
import { LimiterClosedError, LimiterDeadlineError } from './errors.js';
import { SlidingWindow } from './sliding-window.js';
import { sleeperFor, sleepUntil } from './sleep.js';
import type { CallJournal, LimiterEvent, LimiterSnapshot, Priority, QuotaRule, RunOptions, Sleeper } from './types.js';
import { WaiterQueue, type Waiter } from './waiters.js';
import { retryWait, type RetryPolicy } from './retry-wait.js';
import { describeError, describeOutcome, settle } from './outcome.js';

export type { LimiterSnapshot } from './types.js';

export interface LimiterOptions {
  /** Time source; the system clock is replaced by its monotonic twin, so a wall-clock step never moves a window. */
  clock?: Clock;
  /** Safety margin added to the period, for clock granularity and skew. Default 50 ms. */
  marginMs?: number;
  /** At most this many calls in flight, whatever the quota. Default: no cap. */
  maxConcurrent?: number;
  /** Full-jitter exponential backoff between attempts. Default 500 ms doubling up to 30 s. */
  backoff?: Partial<BackoffOptions>;
  /** Default deadline of a call, queue time included. Default 5 minutes. */
  deadlineMs?: number;
  /** A server's Retry-After longer than this is cut to it (an absurd one would stop the API). Default 5 minutes. */
  maxRetryAfterMs?: number;
  onEvent?: (event: LimiterEvent) => void;
  /** Remembers calls across restarts; its history is counted as completions when the limiter starts. */
  journal?: CallJournal;
  /** Source of jitter (tests pass a fixed one). */
  random?: () => number;
  /** How waiting is done (tests pass virtual time). Default: `sleeperFor(clock)`, exact real timers where it can. */
  sleep?: Sleeper;
}

export const DEFAULT_DEADLINE_MS = 5 * 60_000;
export const DEFAULT_MAX_RETRY_AFTER_MS = 5 * 60_000;

/**
 * The one gate to an API for a token: an exact sliding-window quota (see SlidingWindow for the proof), priorities,
 * retries with backoff within a deadline, and graceful shutdown. Every attempt takes a slot, because a failed call
 * (5xx, timeout) may still have reached the server and been counted.
 */
export class Limiter {
  private readonly window: SlidingWindow;
  private readonly queue = new WaiterQueue();
  private readonly clock: Clock;
  private readonly sleep: Sleeper;
  private readonly retryPolicy: RetryPolicy;
  private readonly deadlineMs: number;
  private readonly onEvent: ((event: LimiterEvent) => void) | undefined;
  private readonly journal: CallJournal | undefined;
  private readonly closing = new AbortController();
  private accepting = true;
  private nextSeq = 0;
  private activeRuns = 0;
  private idleWaiters: Array<() => void> = [];
  private wake: { at: number; abort: AbortController } | undefined;

  constructor(
    readonly api: ApiName,
    readonly quota: QuotaRule | null,
    options: LimiterOptions = {},
  ) {
    this.window = new SlidingWindow(quota, options.marginMs ?? 50, options.maxConcurrent ?? Number.POSITIVE_INFINITY);
    this.clock = intervalClock(options.clock ?? systemClock);
    this.sleep = options.sleep ?? sleeperFor(this.clock);
    this.retryPolicy = {
      backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
      maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS,
      random: options.random ?? Math.random,
      periodMs: quota?.periodMs,
    };
    this.deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
    this.onEvent = options.onEvent;
    this.journal = options.journal;
    const history = this.journal?.history(api, this.clock);
    if (history) {
      for (const completedAt of history.completedAt) this.window.remember(completedAt);
      this.window.assumeCompleted(this.clock.now(), history.unsettled);
    }
  }

  /**
   * Queued calls, calls in flight, completions still counted, and how long until the quota lets the next call go
   * (Infinity while the calls in flight fill it): for telemetry, progress and tests.
   */
  snapshot(): LimiterSnapshot {
    const now = this.clock.now();
    return {
      queued: this.queue.size,
      queuedBackfill: this.queue.sizeOf('backfill'),
      inFlight: this.window.inFlight,
      recentCompletions: this.window.recentCompletions(now),
      retainedCompletions: this.window.retained,
      nextSlotInMs: Math.max(0, this.window.nextSendAt(now) - now),
    };
  }

  /**
   * Sends `send()` once a slot is free, retrying what src/failure.ts classes as transient or quota with backoff until
   * the deadline; then, or on a non-retryable error, the last error is thrown. 429: waits at least Retry-After and
   * holds every call of this API until then. Throws LimiterClosedError once close() was called.
   */
  async run<T>(send: () => Promise<T>, options: RunOptions = {}): Promise<T> {
    if (!this.accepting) throw new LimiterClosedError(this.api);
    options.signal?.throwIfAborted();
    this.activeRuns++;
    try {
      return await this.attempts(send, options);
    } finally {
      if (--this.activeRuns === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /** Stops accepting calls; queued calls and retries still run. Resolves when every call has settled. */
  drain(): Promise<void> {
    this.accepting = false;
    return this.whenIdle();
  }

  /**
   * Stops accepting calls, rejects queued calls and pending retries with LimiterClosedError, and resolves once the
   * calls in flight have completed.
   */
  close(): Promise<void> {
    this.accepting = false;
    this.closing.abort();
    for (const waiter of this.queue.clear()) waiter.fail(new LimiterClosedError(this.api));
    this.cancelWake();
    return this.whenIdle();
  }

  private async attempts<T>(send: () => Promise<T>, options: RunOptions): Promise<T> {
    const priority = options.priority ?? 'live';
    const deadlineMs = options.deadlineMs ?? this.deadlineMs;
    const deadlineAt = this.clock.now() + deadlineMs;
    const seq = this.nextSeq++;
    let lastError: unknown;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.acquire({ seq, priority, attempt, deadlineAt, deadlineMs }, options.signal);
      } catch (err) {
        throw err instanceof LimiterDeadlineError ? this.giveUp(lastError ?? err, attempt - 1, 'deadline') : err;
      }
      const outcome = await settle(send);
      const now = this.clock.now();
      this.window.release(now);
      this.record((journal) => journal.completed(this.api));
      this.pump();
      if (outcome.ok) {
        this.emit({ type: 'call', attempt, ...describeOutcome(outcome) });
        return outcome.value;
      }
      lastError = outcome.error;
      // Classified once: every watcher of the attempts reads the same verdict from the event.
      const failure = classify(outcome.error);
      this.emit({ type: 'call', attempt, ...describeOutcome(outcome), error: outcome.error, failure });
      const waitMs = this.waitBeforeRetry(outcome.error, failure, attempt, now);
      if (waitMs === undefined) throw this.giveUp(outcome.error, attempt, 'final');
      if (now + waitMs >= deadlineAt) throw this.giveUp(outcome.error, attempt, 'deadline', waitMs);
      this.emit({ type: 'retry', attempt, waitMs, ...describeOutcome(outcome) });
      await this.pause(now + waitMs, outcome.error, options.signal);
    }
  }

  /** How long to wait before the next attempt (retryWait decides), or undefined when the error is final. */
  private waitBeforeRetry(err: unknown, failure: Failure, attempt: number, now: number): number | undefined {
    const wait = retryWait(failure, attempt, this.retryPolicy);
    if (wait?.capped) this.emit({ type: 'retry-after-capped', attempt, ...describeError(err), ...wait.capped });
    if (wait?.blockMs !== undefined) {
      // Another client on the token, a restart: the window counts as full until the server lets us in again.
      this.window.blockUntil(now + wait.blockMs);
      this.emit({ type: 'throttled', attempt, status: 429, waitMs: wait.blockMs });
    }
    return wait?.waitMs;
  }

  private async pause(until: number, lastError: unknown, signal: AbortSignal | undefined): Promise<void> {
    const abort = signal ? AbortSignal.any([this.closing.signal, signal]) : this.closing.signal;
    try {
      await sleepUntil(this.clock, this.sleep, until, abort);
    } catch (err) {
      if (this.closing.signal.aborted) throw new LimiterClosedError(this.api, { cause: lastError });
      throw err;
    }
  }

  private giveUp(err: unknown, attempts: number, reason: 'final' | 'deadline', waitMs?: number): unknown {
    this.emit({
      type: 'error',
      attempt: attempts,
      reason,
      ...describeError(err),
      ...(waitMs === undefined ? {} : { waitMs }),
    });
    return err;
  }

  /** The journal is best effort: whatever it does (a full disk), a slot is granted and released exactly once. */
  private record(write: (journal: CallJournal) => void): void {
    if (!this.journal) return;
    try {
      write(this.journal);
    } catch {
      // The journal reports its own failures (QuotaJournal: onEvent); here it must only never break the accounting.
    }
  }

  private acquire(
    ticket: { seq: number; priority: Priority; attempt: number; deadlineAt: number; deadlineMs: number },
    signal: AbortSignal | undefined,
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.closing.signal.aborted) return reject(new LimiterClosedError(this.api));
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        if (this.queue.remove(waiter)) {
          waiter.fail(signal?.reason);
          this.pump();
        }
      };
      let stopListening = () => {};
      const waiter: Waiter = {
        seq: ticket.seq,
        priority: ticket.priority,
        enqueuedAt: this.clock.now(),
        deadlineAt: ticket.deadlineAt,
        grant: (now) => {
          stopListening();
          const waitMs = now - waiter.enqueuedAt;
          if (waitMs > 0) this.emit({ type: 'throttled', attempt: ticket.attempt, waitMs });
          resolve();
        },
        expire: () => waiter.fail(new LimiterDeadlineError(this.api, ticket.deadlineMs)),
        fail: (err) => {
          stopListening();
          reject(err);
        },
      };
      if (signal) stopListening = whenAborted(signal, onAbort);
      this.queue.add(waiter);
      this.pump();
    });
  }

  /** Grants every slot that is free now (live first), expires overdue waiters, and sets one timer for what is next. */
  private pump(): void {
    const now = this.clock.now();
    // An overdue waiter that a slot was free for by its deadline is served: a late wake (a busy event loop) must not
    // refuse a call for want of a slot it could have had. The others expire first, and any left after the grants.
    for (const waiter of this.queue.expired(now, (w) => !this.window.canSend(w.deadlineAt))) waiter.expire();
    while (this.queue.size > 0 && this.window.canSend(now)) {
      this.window.acquire(now);
      this.record((journal) => journal.sent(this.api));
      this.queue.shift()!.grant(now);
    }
    for (const waiter of this.queue.expired(now)) waiter.expire();
    const next =
      this.queue.size === 0
        ? Number.POSITIVE_INFINITY
        : Math.min(this.window.nextSendAt(now), this.queue.earliestDeadline());
    if (this.wake?.at === next) return;
    this.cancelWake();
    if (!Number.isFinite(next)) return;
    const wake = { at: next, abort: new AbortController() };
    this.wake = wake;
    this.sleep(next - now, wake.abort.signal).then(
      () => {
        if (this.wake !== wake) return;
        this.wake = undefined;
        this.pump();
      },
      () => {},
    );
  }

  private cancelWake(): void {
    this.wake?.abort.abort();
    this.wake = undefined;
  }

  private whenIdle(): Promise<void> {
    return this.activeRuns === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private emit(event: Omit<LimiterEvent, 'api'>): void {
    try {
      this.onEvent?.({ api: this.api, ...event });
    } catch {
      // Telemetry must never break a call.
    }
  }
}
