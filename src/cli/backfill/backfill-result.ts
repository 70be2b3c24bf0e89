import { formatDuration } from '../../backfill/eta.js';
import type { ApiName } from '../../spec/apis.js';
import type { BackfillStop } from './backfill-stop.js';
import { CliError, EXIT_FAILURE } from '../common/common.js';
import { stoppedExitCode } from '../common/signals.js';
import { EXIT_POINTS_REFUSED } from '../common/verdict.js';
import { counted } from '../../words.js';

/** What a backfill did: the summary line, and `--json`. */
export interface BackfillResult {
  /** `daemon`: handed to the daemon holding the state directory; `standalone`: run in this process. */
  mode: 'standalone' | 'daemon';
  state: 'done' | 'incomplete' | 'cancelled';
  from: string;
  to: string;
  spans: number;
  plannedSpans: number;
  points: number;
  durationSec: number;
  /** Calls per API: counted (standalone) or the plan's cost of the spans done (daemon: its live calls are apart). */
  calls: Partial<Record<ApiName, number>>;
  failed: string[];
  setAside: number;
  /** Points the database refused for good (dead letters). */
  refused: number;
  notes: string[];
  /** Set when it stopped because the sink's file cannot grow (a full disk): the cause and the fix. */
  sinkFull?: string;
}

/**
 * The summary (or JSON), then an error exit when the backfill did not complete or points were refused; stopped by a
 * signal, the line that resumes it and 128 + the signal's number.
 */
export function finish(result: BackfillResult, json: boolean, stop: BackfillStop, refusalsNamed: string): void {
  if (json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else {
    const calls =
      Object.entries(result.calls)
        .map(([api, n]) => `${api} ${n}`)
        .join(', ') || 'none';
    // Before the summary: after a cancel, the last lines are the summary and how to resume.
    for (const note of result.notes) process.stderr.write(`note: ${note}\n`);
    process.stderr.write(
      `backfill ${result.state}: ${result.spans}/${counted(result.plannedSpans, 'span')}, ` +
        `${counted(result.points, 'point')}` +
        `${result.refused > 0 ? ` (${counted(result.refused, 'point')} refused by the database)` : ''} in ` +
        `${formatDuration(result.durationSec * 1000)}; calls: ${calls}\n`,
    );
    if (result.plannedSpans === 0)
      process.stderr.write('0 spans: every window in the range is collected already, or cut by the notes above\n');
  }
  const { resume } = stop;
  const signal = stop.signal();
  if (result.state === 'cancelled') {
    const by = signal ? ` by ${signal}` : '';
    const left = 'the rest of the range is left to this command, not the daemon (`cdn-collector status` lists it)';
    process.stderr.write(
      `backfill stopped${by}: the spans collected are checkpointed; ${left}; resume with: ${resume}\n`,
    );
    process.exitCode = signal ? stoppedExitCode(signal) : EXIT_FAILURE;
    return;
  }
  if (result.sinkFull !== undefined)
    throw new CliError(`backfill stopped: ${result.sinkFull}; then resume with: ${resume}`);
  if (result.failed.length > 0)
    throw new CliError(
      `backfill incomplete; the rest of the range is left to this command, not the daemon: rerun to resume ` +
        `(${resume}). Failed jobs: ${result.failed.join(', ')}`,
    );
  if (result.setAside > 0) {
    throw new CliError(
      `backfill incomplete: ${result.setAside} span(s) failed for a permanent reason and were set aside ` +
        '(`cdn-collector status` lists them with the reason); they are retried from 10 minutes up to every 6 hours',
    );
  }
  if (result.refused > 0) {
    process.stderr.write(
      `error: backfill: ${result.refused} points refused by the database for good, kept as dead letters ` +
        `(${refusalsNamed}); their spans count as collected: replay the dead letters once fixed\n`,
    );
    process.exitCode = EXIT_POINTS_REFUSED;
    return;
  }
}
