/**
 * The ranges backfills own: `<state.dir>/backfill-ranges.json`, one entry per backfill that started and has not
 * completed (cancelled, failed, killed, or still running). The range is the backfill's: the daemon never collects
 * it (its gap filling starts at its own origin), so an entry stays until a `backfill` of it completes. Written by
 * the process holding the state lock (the daemon for a handed-over backfill, else the backfill itself); read without
 * the lock by `status`.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileDurably } from './durable-file.js';
import { encodeStateText, loadStateFile, type StateFormat } from './json-state.js';

const epochMs = z.number().int().safe();
const rangeSchema = z.object({
  id: z.string().min(1),
  from: epochMs,
  to: epochMs,
  /** Job key prefixes (`--jobs`); empty: every checkpointed job. */
  jobs: z.array(z.string()),
  /** Spans of the range when it was first planned, and how many of them are collected. */
  spans: z.number().int().min(0),
  spansDone: z.number().int().min(0),
  /** `running` (by `pid`), or how it last ended: `cancelled` or `incomplete` (failed jobs, set-aside spans). */
  state: z.enum(['running', 'cancelled', 'incomplete']),
  /** The command that resumes it. */
  command: z.string(),
  pid: z.number().int(),
  startedAt: epochMs,
  updatedAt: epochMs,
});
export type BackfillRange = z.output<typeof rangeSchema>;

const rangesFormat: StateFormat<{ ranges: BackfillRange[] }> = {
  version: 1,
  schema: z.object({ ranges: z.array(rangeSchema) }),
  empty: () => ({ ranges: [] }),
};

const FILE = 'backfill-ranges.json';

/** One id per range and job selection: a rerun of the same command (its resume) continues the same entry. */
export function backfillRangeId(from: number, to: number, jobs: readonly string[]): string {
  const text = JSON.stringify([from, to, [...jobs].sort()]);
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/** The entries, oldest first; a damaged file reads as none, with `problem` naming it (status lists it). */
export async function readBackfillRanges(dir: string): Promise<{ ranges: BackfillRange[]; problem?: string }> {
  const loaded = await loadStateFile(join(dir, FILE), rangesFormat);
  const ranges = [...loaded.value.ranges].sort((a, b) => a.startedAt - b.startedAt);
  return loaded.problem ? { ranges, problem: loaded.problem } : { ranges };
}

/** Changes of one process run one after another, so that no read-modify-write loses another's change. */
const queues = new Map<string, Promise<unknown>>();

/** Applies `change` to the entries and writes the file (the lock holder only). */
export function changeBackfillRanges(dir: string, change: (ranges: BackfillRange[]) => BackfillRange[]): Promise<void> {
  const path = join(dir, FILE);
  const run = async () => {
    const loaded = await loadStateFile(path, rangesFormat, { keepCopy: true });
    if (loaded.readError) throw loaded.readError;
    await writeFileDurably(path, encodeStateText(rangesFormat, { ranges: change(loaded.value.ranges) }));
  };
  const next = (queues.get(dir) ?? Promise.resolve()).then(run, run);
  queues.set(
    dir,
    next.catch(() => {}),
  );
  return next;
}
