import { readBackfillRanges } from '../../state/backfill-ranges.js';
import { isProcessAlive } from '../../state/lock.js';

// The backfill ranges `status` lists: each backfill that started and has not completed, with its resume command.

export interface UnfinishedBackfill {
  from: string;
  to: string;
  /** The `--jobs` prefixes; empty: every checkpointed job. */
  jobs: string[];
  spansDone: number;
  spans: number;
  /** `running`; `cancelled`, `incomplete`; or `interrupted` (its process ended without saying how: killed). */
  state: 'running' | 'cancelled' | 'incomplete' | 'interrupted';
  /** Runs the rest of the range (the daemon never collects it). */
  resume: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** From the state directory, without the lock; `problem` names a file that cannot be read. */
export async function gatherUnfinishedBackfills(
  dir: string,
): Promise<{ backfills: UnfinishedBackfill[]; problem?: string }> {
  const { ranges, problem } = await readBackfillRanges(dir);
  const backfills = ranges.map((r): UnfinishedBackfill => {
    // A running entry names the process that runs it; on another host (a shared volume) it is taken at its word.
    const ended = r.state === 'running' && r.pid !== process.pid && !isProcessAlive(r.pid);
    const state = ended ? 'interrupted' : r.state;
    const { jobs, spansDone, spans, command } = r;
    return { from: iso(r.from), to: iso(r.to), jobs, spansDone, spans, state, resume: command };
  });
  return problem ? { backfills, problem } : { backfills };
}

/** Per job group (its `--jobs` selection): the range, spans done of total, how it stands, and its resume command. */
export function unfinishedBackfillLines(backfills: readonly UnfinishedBackfill[]): string[] {
  if (backfills.length === 0) return [];
  const lines = ['unfinished backfills (the daemon does not collect them; resume each with its command):'];
  for (const b of backfills) {
    const group = b.jobs.length === 0 ? 'all jobs' : `jobs ${b.jobs.join(', ')}`;
    lines.push(`  ${group}: ${b.from} → ${b.to}, ${b.spansDone}/${b.spans} spans, ${b.state}`, `    ${b.resume}`);
  }
  return lines;
}
