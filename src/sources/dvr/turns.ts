/**
 * Fair turns for DVR snapshots that do not fit the quota. The streams are read in one endless round
 * (config order); each interval reads the next ones, as many as the quota's budget per interval B = quota calls ×
 * interval ÷ quota period (fractional budgets alternate: interval k reads ⌊(k+1)·B⌋ − ⌊k·B⌋). A schedule that runs
 * every g intervals gives a pass the budget of those g intervals. Every stream gets its turn, the counts of any two
 * streams differ by at most one, and each is read on average every N ÷ B intervals.
 *
 * The round moves on when an interval's turns are first asked for (a pass), not with the clock: an interval whose pass
 * was skipped (the one before still waited for quota) skips no stream, the next pass continues the round (with no more
 * than a pass's budget: a larger one would only queue and delay the passes after it). It starts where the clock puts
 * it (⌊k·B⌋ mod N), so a restart does not begin again with the first streams.
 */
export interface DvrTurnsRule {
  streams: number;
  intervalMs: number;
  quota: { calls: number; period: number };
  /** Intervals between two passes (the schedule's gap ÷ the interval, rounded up; default 1). */
  passIntervals?: number;
}

export class DvrRound {
  /** The interval whose turns were asked for last, the round's position at its first read, and its reads. */
  private interval: bigint | undefined;
  private first = 0n;
  private count = 0n;

  constructor(private readonly rule: DvrTurnsRule) {}

  /** Whether stream `index` (0-based, in config order) is read in the interval that starts at `intervalStart`. */
  isTurn(index: number, intervalStart: number): boolean {
    const k = BigInt(Math.floor(intervalStart / this.rule.intervalMs));
    const n = BigInt(this.rule.streams);
    if (this.interval === undefined || k > this.interval) {
      // The budget accrued since the interval after the last pass, at most a pass's worth.
      let from = k + 1n - BigInt(passIntervals(this.rule));
      if (this.interval !== undefined && from <= this.interval) from = this.interval + 1n;
      this.first = this.interval === undefined ? readsBefore(this.rule, from) % n : (this.first + this.count) % n;
      this.interval = k;
      this.count = readsBefore(this.rule, k + 1n) - readsBefore(this.rule, from);
    }
    if (this.count >= n) return true;
    const offset = (((BigInt(index) - this.first) % n) + n) % n;
    return offset < this.count;
  }
}

/** True when the streams need more reads per interval than the quota allows: turns are then taken. */
export function dvrTurnsNeeded(rule: DvrTurnsRule): boolean {
  return rule.streams * rule.quota.period > rule.quota.calls * rule.intervalMs * passIntervals(rule);
}

function passIntervals(rule: DvrTurnsRule): number {
  return Math.max(1, Math.ceil(rule.passIntervals ?? 1));
}

/** ⌊k · calls · interval ÷ period⌋ in integers: epoch-scale products exceed 2^53. */
function readsBefore(rule: DvrTurnsRule, k: bigint): bigint {
  return (k * BigInt(rule.quota.calls) * BigInt(rule.intervalMs)) / BigInt(rule.quota.period);
}
