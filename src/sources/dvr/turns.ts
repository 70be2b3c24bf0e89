/**
 * Fair turns for DVR snapshots that do not fit the quota (issue 14 §4). The streams are read in one endless round
 * (config order); each interval reads the next ones, as many as the quota's budget per interval B = quota calls ×
 * interval ÷ quota period (fractional budgets alternate: interval k reads ⌊(k+1)·B⌋ − ⌊k·B⌋). Every stream gets its
 * turn, the counts of any two streams differ by at most one, and each is read on average every N ÷ B intervals.
 *
 * The round moves on when an interval's turns are first asked for (a pass), not with the clock: an interval whose pass
 * was skipped (the one before still waited for quota) skips no stream, the next pass continues the round. It starts
 * where the clock puts it (⌊k·B⌋ mod N), so a restart does not begin again with the first streams.
 */
export interface DvrTurnsRule {
  streams: number;
  intervalMs: number;
  quota: { calls: number; period: number };
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
    if (this.interval === undefined) {
      this.first = readsBefore(this.rule, k) % n;
    } else if (k > this.interval) {
      this.first = (this.first + this.count) % n;
    }
    if (this.interval === undefined || k > this.interval) {
      this.interval = k;
      this.count = readsBefore(this.rule, k + 1n) - readsBefore(this.rule, k);
    }
    if (this.count >= n) return true;
    const offset = (((BigInt(index) - this.first) % n) + n) % n;
    return offset < this.count;
  }
}

/** True when the streams need more reads per interval than the quota allows: turns are then taken. */
export function dvrTurnsNeeded(rule: DvrTurnsRule): boolean {
  return rule.streams * rule.quota.period > rule.quota.calls * rule.intervalMs;
}

/** ⌊k · calls · interval ÷ period⌋ in integers: epoch-scale products exceed 2^53. */
function readsBefore(rule: DvrTurnsRule, k: bigint): bigint {
  return (k * BigInt(rule.quota.calls) * BigInt(rule.intervalMs)) / BigInt(rule.quota.period);
}
