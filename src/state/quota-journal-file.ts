import { join } from 'node:path';
import { z } from 'zod';
import { perApi, type ApiName } from '../spec/apis.js';
import { asStateIoError } from './errors.js';
import { loadStateFile, loadStateFileSync, type StateFormat } from './json-state.js';

export const QUOTA_JOURNAL_FILE = 'quota-calls.json';

/** More than any quota's N needs; older completions no longer count anyway. */
export const KEEP = 500;
/** More calls in flight than any collector makes; a larger count is damage, not history. */
const MAX_IN_FLIGHT = 100_000;

export interface Entry {
  /** Completion times of recent calls (epoch ms, wall clock). */
  done: number[];
  /** Calls sent and not yet completed; after a crash their completion is unknown. */
  inFlight: number;
}

export type Entries = Partial<Record<ApiName, Entry>>;

/** What a start-up read of the journal found. */
export type LoadedJournal =
  | { kind: 'ok'; entries: Entries; future: { count: number; aheadMs: number } }
  | { kind: 'damaged'; problem: string; copy: string | undefined };

const entrySchema = z
  .object({
    done: z.array(z.number().finite().positive()).max(KEEP),
    inFlight: z.number().int().min(0).max(MAX_IN_FLIGHT),
  })
  .strict();
/** Per API, its recent calls. The file had no version before version 1; it reads as version 1. */
export const journalFormat: StateFormat<Entries> = {
  version: 1,
  schema: z
    .object(perApi(() => entrySchema))
    .partial()
    .strict(),
  empty: () => ({}),
};

/** The journal of `dir` as it is on disk, read without the lock (`status`); empty when missing or unusable. */
export async function readJournalEntries(dir: string): Promise<Entries> {
  return (await loadStateFile(join(dir, QUOTA_JOURNAL_FILE), journalFormat)).value;
}

/**
 * Reads the journal at `path` as of wall time `now`. Missing: empty. Damaged (not JSON, wrong shape, absurd counts):
 * a copy is kept next to it and the caller assumes the worst. Completion times in the future (the wall clock was set
 * back, or the file came from a machine ahead of us) are clamped to `now`; calls left in flight count as completed
 * at `now` (they may have reached the server up to now). Other read errors are a StateIoError.
 */
export function loadJournal(path: string, now: number): LoadedJournal {
  const loaded = loadStateFileSync(path, journalFormat, { keepCopy: true });
  if (loaded.readError) throw asStateIoError(loaded.readError, path) ?? loaded.readError;
  if (loaded.defect !== undefined) return { kind: 'damaged', problem: loaded.defect, copy: loaded.copy };
  const entries: Entries = {};
  const future = { count: 0, aheadMs: 0 };
  for (const [api, entry] of Object.entries(loaded.value) as Array<[ApiName, Entry]>) {
    const done = entry.done.map((at) => {
      if (at <= now) return at;
      future.count++;
      future.aheadMs = Math.max(future.aheadMs, at - now);
      return now;
    });
    // Bounded: only the latest N completions ever count, so at most KEEP stand in for the calls left in flight.
    for (let i = 0; i < Math.min(entry.inFlight, KEEP); i++) done.push(now);
    entries[api] = { done: done.sort((a, b) => a - b).slice(-KEEP), inFlight: 0 };
  }
  return { kind: 'ok', entries, future };
}
