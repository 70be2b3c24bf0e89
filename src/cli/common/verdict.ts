import type { CallTally } from '../../telemetry/api-watch.js';
import type { PassResult } from '../../collector/collector.js';
import { counted } from '../../words.js';

/** Exit codes of `run --once` beyond 0 (every pending window collected), 1 (error) and 2 (bad arguments/config). */
export const EXIT_SET_ASIDE = 3;
export const EXIT_WINDOWS_FAILED = 4;
/** Every window collected, but the database refused some points for good (they are dead letters). */
export const EXIT_POINTS_REFUSED = 5;

export interface OnceVerdict {
  collected: number;
  setAside: number;
  /** Windows still pending in jobs whose pass ended on a failure. */
  failed: number;
  failedJobs: number;
  points: number;
  /** Points the database refused for good (dead-lettered). */
  refused: number;
  calls: number;
  quotaRejections: number;
}

/**
 * Sums one pass of every job; `stillPending(key)` counts what a failed job left pending; `refused`: the points the
 * database refused in the pass (telemetry's count: a write shared by jobs is not counted per job).
 */
export function onceVerdict(
  results: readonly PassResult[],
  stillPending: (key: string) => number,
  calls: CallTally,
  refused = 0,
): OnceVerdict {
  const failedResults = results.filter((r) => r.error !== undefined);
  return {
    collected: sum(results, (r) => r.spans),
    setAside: sum(results, (r) => r.setAside),
    // A failed pass leaves at least the span it failed on (a non-checkpointed job counts it as one).
    failed: sum(failedResults, (r) => Math.max(1, stillPending(r.key))),
    failedJobs: failedResults.length,
    points: sum(results, (r) => r.points),
    refused,
    calls: calls.calls,
    quotaRejections: calls.quotaRejections,
  };
}

/** The one line `run --once` ends with. */
export function verdictLine(v: OnceVerdict): string {
  const failedJobs = v.failedJobs > 0 ? ` in ${counted(v.failedJobs, 'job')}` : '';
  const refused = v.refused > 0 ? `, ${counted(v.refused, 'point')} refused by the database (dead letters)` : '';
  return (
    `once: ${verdictWord(v)}: ${counted(v.collected, 'window')} collected, ${v.setAside} set aside, ` +
    `${v.failed} failed${failedJobs}; ${counted(v.points, 'point')}${refused}; ${counted(v.calls, 'call')}, ` +
    `${v.quotaRejections} answered 429`
  );
}

/**
 * Failed windows win (the API or the sink is down), then refused points (stored nowhere but the dead letters), then
 * set-aside windows (retried later).
 */
export function verdictExitCode(v: OnceVerdict): number {
  if (v.failed > 0) return EXIT_WINDOWS_FAILED;
  if (v.refused > 0) return EXIT_POINTS_REFUSED;
  if (v.setAside > 0) return EXIT_SET_ASIDE;
  return 0;
}

function verdictWord(v: OnceVerdict): string {
  if (v.failed > 0) return 'FAILED';
  if (v.refused > 0) return 'POINTS REFUSED';
  if (v.setAside > 0) return 'SET ASIDE';
  return 'ok';
}

function sum<T>(items: readonly T[], of: (item: T) => number): number {
  return items.reduce((n, item) => n + of(item), 0);
}

/** The line of a `run --once` a signal stopped: what it kept, and what is left for the next run. */
export function stoppedVerdictLine(v: OnceVerdict, signal: string, left: number): string {
  return (
    `once: STOPPED by ${signal}: ${counted(v.collected, 'window')} collected and checkpointed, ${v.setAside} set ` +
    `aside, ${left} left for the next run; ${counted(v.points, 'point')}; ${counted(v.calls, 'call')}, ` +
    `${v.quotaRejections} answered 429`
  );
}
