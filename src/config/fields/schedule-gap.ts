import { nextRunsUtc } from '../../cron.js';

/**
 * The mean time between the runs of a cron schedule (over its next 64), or undefined if it runs less than twice:
 * how often a pass of an API starts, for the quota demand (plan/capacity.ts) and DVR's turns.
 */
export function scheduleGapMs(expression: string): number | undefined {
  const runs = nextRunsUtc(expression, 64).map((d) => d.getTime());
  return runs.length >= 2 ? (runs.at(-1)! - runs[0]!) / (runs.length - 1) : undefined;
}
