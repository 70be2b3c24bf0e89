/**
 * Fair turns for DVR snapshots that do not fit the quota (issue 14 §4). Reads are numbered in one endless round over
 * the streams (read r snapshots stream r mod N); interval k gets reads ⌊k·B⌋ … ⌊(k+1)·B⌋ − 1, where B = quota calls ×
 * interval ÷ quota period is the quota's budget per interval. Every stream gets its turn, the counts of any two streams
 * differ by at most one, and each stream is read on average every N ÷ B intervals instead of every interval.
 *
 * Stateless over the clock: the same interval gives the same turns in every process, so a restart (or `run --once`
 * driven from an outside scheduler) continues the round instead of starting again with the first streams.
 */
export interface DvrTurnsRule {
  streams: number;
  intervalMs: number;
  quota: { calls: number; period: number };
}

/** Whether stream `index` (0-based, in config order) is read in the interval that starts at `intervalStart`. */
export function isDvrTurn(rule: DvrTurnsRule, index: number, intervalStart: number): boolean {
  const { streams } = rule;
  const k = BigInt(Math.floor(intervalStart / rule.intervalMs));
  const lo = readsBefore(rule, k);
  const count = readsBefore(rule, k + 1n) - lo;
  if (count >= BigInt(streams)) return true;
  const n = BigInt(streams);
  // The offset of this stream after the round's position at the interval's first read.
  const offset = (((BigInt(index) - lo) % n) + n) % n;
  return offset < count;
}

/** True when the streams need more reads per interval than the quota allows: turns are then taken. */
export function dvrTurnsNeeded(rule: DvrTurnsRule): boolean {
  return rule.streams * rule.quota.period > rule.quota.calls * rule.intervalMs;
}

/** ⌊k · calls · interval ÷ period⌋ in integers: epoch-scale products exceed 2^53. */
function readsBefore(rule: DvrTurnsRule, k: bigint): bigint {
  return (k * BigInt(rule.quota.calls) * BigInt(rule.intervalMs)) / BigInt(rule.quota.period);
}
