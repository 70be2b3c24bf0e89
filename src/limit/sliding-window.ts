import { ParameterError } from '../errors.js';
import type { QuotaRule } from './types.js';

/**
 * Exact sliding-window accounting of one API quota (N calls per P ms), as the SERVER sees the calls.
 *
 * The server counts a call at its arrival a, somewhere between our send s and our receipt of the response c
 * (s ≤ a ≤ c). We do not know a, so a call holds its slot from send to completion, and a call may be sent at time t
 * only if
 *
 *     inFlight(t) + #{ completed calls with c > t − P − margin } < N                                    (1)
 *
 * Claim: no window [w, w + P) of server time ever holds more than N arrivals.
 * Proof: suppose N + 1 calls arrive in one such window, so any two of their arrivals are less than P apart. Let X be
 * the one of them that was granted last, at s_X. Each of the other N calls Y was granted before X, so at s_X it was
 * either still in flight, or it had completed at c_Y with c_Y ≥ a_Y > a_X − P ≥ s_X − P, i.e. within the last P
 * before s_X. Either way Y is counted in (1) at s_X, so the left side was ≥ N and X could not have been granted.
 * Contradiction. The argument uses nothing about latency, so it holds for any latency and any concurrency; it only
 * needs our clock and the server's to agree, which `marginMs` absorbs (granularity, small skew).
 * Equivalently: send_{i+N} ≥ completion_i + P for the i-th completed call.
 *
 * Memory is bounded: (1) never needs more than the N latest completions, so only those are kept.
 * A 429 means our view was off (another client on the token, a restart): `blockUntil` treats the window as full.
 */
export class SlidingWindow {
  /** The latest ≤ N completion times, ascending. */
  private readonly completions: number[] = [];
  private inFlightCount = 0;
  private blockedUntil = Number.NEGATIVE_INFINITY;

  constructor(
    readonly quota: QuotaRule | null,
    readonly marginMs = 50,
    /** A concurrency cap of its own (e.g. to spare a slow server), independent of the quota. */
    readonly maxConcurrent = Number.POSITIVE_INFINITY,
  ) {
    if (quota) {
      if (!Number.isSafeInteger(quota.calls) || quota.calls < 1) {
        throw new ParameterError('quota.calls', `must be a whole number ≥ 1, got ${quota.calls}`);
      }
      if (!(quota.periodMs > 0)) throw new ParameterError('quota.periodMs', `must be > 0, got ${quota.periodMs}`);
    }
    if (!(marginMs >= 0)) throw new ParameterError('marginMs', `must be ≥ 0, got ${marginMs}`);
    if (!(maxConcurrent >= 1)) throw new ParameterError('maxConcurrent', `must be ≥ 1, got ${maxConcurrent}`);
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  /** Completions still counted at `now` (never more than N are kept). */
  recentCompletions(now: number): number {
    return this.countedAt(now).length;
  }

  /** Completion times held in memory (for the bound: ≤ N). */
  get retained(): number {
    return this.completions.length;
  }

  /**
   * The earliest time ≥ `now` at which a call may be sent, or Infinity while only a completion can free a slot.
   * A slot frees when enough counted completions have aged out: completion c stops counting at c + P + margin.
   */
  nextSendAt(now: number): number {
    if (this.inFlightCount >= this.maxConcurrent) return Number.POSITIVE_INFINITY;
    const at = Math.max(now, this.blockedUntil);
    if (!this.quota) return at;
    const free = this.quota.calls - this.inFlightCount;
    if (free <= 0) return Number.POSITIVE_INFINITY;
    const counted = this.countedAt(at);
    const excess = counted.length - free + 1;
    return excess <= 0 ? at : counted[excess - 1]! + this.quota.periodMs + this.marginMs;
  }

  canSend(now: number): boolean {
    return this.nextSendAt(now) <= now;
  }

  /** Takes a slot at `now`; the caller checked `canSend(now)`. */
  acquire(now: number): void {
    if (!this.canSend(now)) throw new Error('SlidingWindow.acquire: no free slot (check canSend first)');
    this.inFlightCount++;
  }

  /** The call of an acquired slot completed (response or failure received) at `at`. */
  release(at: number): void {
    if (this.inFlightCount <= 0) throw new Error('SlidingWindow.release: nothing in flight');
    this.inFlightCount--;
    if (!this.quota) return;
    let i = this.completions.length;
    while (i > 0 && this.completions[i - 1]! > at) i--;
    this.completions.splice(i, 0, at);
    if (this.completions.length > this.quota.calls)
      this.completions.splice(0, this.completions.length - this.quota.calls);
  }

  /** Counts a call completed at `at` by an earlier process (restart after a crash). */
  remember(at: number): void {
    this.inFlightCount++;
    this.release(at);
  }

  /**
   * Counts `count` calls of an earlier process whose completion is unknown as completed at `at` (Infinity: unknown
   * how many, so the window is full). Only the N latest completions matter, so at most N are added.
   */
  assumeCompleted(at: number, count: number): void {
    const n = Math.min(count, this.quota?.calls ?? 0);
    for (let i = 0; i < n; i++) this.remember(at);
  }

  /** Sends nothing before `until` (the server said the window is full). */
  blockUntil(until: number): void {
    this.blockedUntil = Math.max(this.blockedUntil, until);
  }

  private countedAt(t: number): number[] {
    if (!this.quota) return [];
    const horizon = t - this.quota.periodMs - this.marginMs;
    return this.completions.filter((c) => c > horizon);
  }
}
