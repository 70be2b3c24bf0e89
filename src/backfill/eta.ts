/**
 * How long a backfill still takes: from what the plan says is left per API and the quota of each, not from the
 * spans done so far (which run in bursts of N calls per period, so a rate from the first seconds is off by the
 * whole quota). Pure over the times it is given, so tests run it on a virtual clock.
 */
import type { QuotaRule, QuotaSet } from '../limit/types.js';
import type { ApiName } from '../spec/apis.js';

interface ApiProgress {
  planned: number;
  /** Start times of this backfill's calls (only the last N matter to the quota). */
  sent: number[];
  done: number;
}

export class BackfillEta {
  private readonly apis = new Map<ApiName, ApiProgress>();
  /** Mean time from a call's start to its span being confirmed (call time), measured. */
  private transitTotal = 0;
  private transitCount = 0;

  constructor(
    planned: Partial<Record<ApiName, number>>,
    private readonly quotas: QuotaSet,
    private readonly startedAt: number,
  ) {
    for (const [api, calls] of Object.entries(planned) as Array<[ApiName, number]>)
      this.apis.set(api, { planned: calls, sent: [], done: 0 });
  }

  /**
   * `calls` calls of `api` completed at `at`; `tookMs` how long the last one took, when known. A span usually costs
   * one call; the call was sent `tookMs` before it completed.
   */
  completed(api: ApiName, calls: number, at: number, tookMs?: number): void {
    const p = this.apis.get(api) ?? this.apis.set(api, { planned: calls, sent: [], done: 0 }).get(api)!;
    p.done += calls;
    p.planned = Math.max(p.planned, p.done);
    for (let i = 0; i < calls; i++) p.sent.push(at - (tookMs ?? 0));
    if (p.sent.length > 1_000) p.sent.splice(0, p.sent.length - 1_000);
    if (tookMs !== undefined) {
      this.transitTotal += tookMs;
      this.transitCount++;
    }
  }

  /** Measured call time (0 before any was measured). */
  transitMs(): number {
    return this.transitCount === 0 ? 0 : this.transitTotal / this.transitCount;
  }

  /** Milliseconds left at `now`: the slowest API's, each under its quota. */
  remainingMs(now: number): number {
    let longest = 0;
    for (const [api, p] of this.apis)
      longest = Math.max(longest, this.apiRemainingMs(p, this.quotas[api] ?? null, now));
    return longest;
  }

  /** Calls still to make, all APIs together. */
  callsLeft(): number {
    let left = 0;
    for (const p of this.apis.values()) left += Math.max(0, p.planned - p.done);
    return left;
  }

  /**
   * When the last remaining call of one API completes: each call may start once the call N before it has
   * completed a period ago (the limiter's sliding window), the calls of this backfill already made included.
   * Without a quota: at the measured rate so far.
   */
  private apiRemainingMs(p: ApiProgress, quota: QuotaRule | null, now: number): number {
    const left = Math.max(0, p.planned - p.done);
    if (left === 0) return 0;
    const transit = this.transitMs();
    if (!quota) {
      const elapsed = now - this.startedAt;
      return p.done === 0 || elapsed <= 0 ? transit : (left * elapsed) / p.done;
    }
    const n = quota.calls;
    // Completion times of the last n calls, then of each call planned after them.
    const ends = p.sent.slice(-n).map((s) => s + transit);
    let lastEnd = now;
    for (let j = 0; j < left; j++) {
      const blocker = ends.length >= n ? ends[ends.length - n]! : -Infinity;
      const start = Math.max(now, blocker + quota.periodMs);
      lastEnd = start + transit;
      ends.push(lastEnd);
      if (ends.length > 2 * n) ends.splice(0, ends.length - n);
    }
    return lastEnd - now;
  }
}

/** `1h 02m`, `9m 20s`, `45s`: whole seconds first, so there is no `2m60s`. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}
