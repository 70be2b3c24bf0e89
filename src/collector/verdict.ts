import type { CallTally } from './api-watch.js';
import type { PassResult } from './collector.js';

/** Exit codes of `run --once` beyond 0 (every pending window collected), 1 (error) and 2 (bad arguments/config). */
export const EXIT_SET_ASIDE = 3;
export const EXIT_WINDOWS_FAILED = 4;

export interface OnceVerdict {
  collected: number;
  setAside: number;
  /** Windows still pending in jobs whose pass ended on a failure. */
  failed: number;
  failedJobs: number;
  points: number;
  calls: number;
  quotaRejections: number;
}

/** Sums one pass of every job; `stillPending(key)` counts what a failed job left pending. */
export function onceVerdict(results: readonly PassResult[], stillPending: (key: string) => number, calls: CallTally): OnceVerdict {
  const failedResults = results.filter((r) => r.error !== undefined);
  return {
    collected: sum(results, (r) => r.spans),
    setAside: sum(results, (r) => r.setAside),
    // A failed pass leaves at least the span it failed on (a non-checkpointed job counts it as one).
    failed: sum(failedResults, (r) => Math.max(1, stillPending(r.key))),
    failedJobs: failedResults.length,
    points: sum(results, (r) => r.points),
    calls: calls.calls,
    quotaRejections: calls.quotaRejections,
  };
}

/** The one line `run --once` ends with. */
export function verdictLine(v: OnceVerdict): string {
  const failedJobs = v.failedJobs > 0 ? ` in ${v.failedJobs} job${v.failedJobs === 1 ? '' : 's'}` : '';
  return (
    `once: ${verdictWord(v)}: ${v.collected} windows collected, ${v.setAside} set aside, ${v.failed} failed${failedJobs}; ` +
    `${v.points} points; ${v.calls} calls, ${v.quotaRejections} answered 429`
  );
}

/** Failed windows win over set-aside ones: they say the API or the sink is down, not that one window is bad. */
export function verdictExitCode(v: OnceVerdict): number {
  if (v.failed > 0) return EXIT_WINDOWS_FAILED;
  if (v.setAside > 0) return EXIT_SET_ASIDE;
  return 0;
}

function verdictWord(v: OnceVerdict): string {
  if (v.failed > 0) return 'FAILED';
  if (v.setAside > 0) return 'SET ASIDE';
  return 'ok';
}

function sum<T>(items: readonly T[], of: (item: T) => number): number {
  return items.reduce((n, item) => n + of(item), 0);
}

/** The line of a `run --once` a signal stopped: what it kept, and what is left for the next run. */
export function stoppedVerdictLine(v: OnceVerdict, signal: string, left: number): string {
  return (
    `once: STOPPED by ${signal}: ${v.collected} windows collected and checkpointed, ${v.setAside} set aside, ` +
    `${left} left for the next run; ${v.points} points; ${v.calls} calls, ${v.quotaRejections} answered 429`
  );
}
