import { join } from 'node:path';
import { z } from 'zod';
import { loadStateFile, type StateFormat } from './json-state.js';

/** A span that failed for a permanent reason, kept so the job can go on and the span is retried on a slow schedule. */
export interface SetAsideEntry {
  from: number;
  to: number;
  /** One-line description of the last failure (typed errors carry a redacted request, never the token). */
  reason: string;
  /** When the span was first set aside. */
  firstAt: number;
  /** Failed attempts so far (the one that set it aside included). */
  attempts: number;
  /** Not collected before this time. */
  nextRetryAt: number;
}

/** Job key → its set-aside spans, sorted and disjoint. */
export type SetAsideMap = ReadonlyMap<string, readonly SetAsideEntry[]>;

export const SET_ASIDE_FILE = 'set-aside.json';

const epochMs = z.number().int().safe();
const entrySchema = z
  .object({
    from: epochMs,
    to: epochMs,
    reason: z.string(),
    firstAt: epochMs,
    attempts: z.number().int().min(1),
    nextRetryAt: epochMs,
  })
  .strict()
  .refine((e) => e.from < e.to, 'empty or reversed span');

export const setAsideFormat: StateFormat<{ jobs: Record<string, SetAsideEntry[]> }> = {
  version: 1,
  schema: z.object({ jobs: z.record(z.string().min(1), z.array(entrySchema)) }).strict(),
  empty: () => ({ jobs: {} }),
};

/** The file's fields: jobs with entries, sorted by key. */
export function setAsideFields(map: SetAsideMap): { jobs: Record<string, SetAsideEntry[]> } {
  const kept = [...map].filter(([, entries]) => entries.length > 0);
  const jobs = Object.fromEntries(kept.sort(([a], [b]) => a.localeCompare(b)));
  return { jobs: jobs as Record<string, SetAsideEntry[]> };
}

/**
 * Reads `dir`'s set-aside list. The owner keeps a copy of a damaged file; a lock-free reader (the file is replaced
 * atomically, so it sees a whole version) does not. A missing file is an empty list; an unreadable one is reported as
 * `problem` with an empty list.
 */
export async function readSetAside(
  dir: string,
  options: { keepCopy?: boolean } = {},
): Promise<{ map: Map<string, SetAsideEntry[]>; problem?: string }> {
  const loaded = await loadStateFile(join(dir, SET_ASIDE_FILE), setAsideFormat, options);
  const map = new Map<string, SetAsideEntry[]>();
  for (const [key, entries] of Object.entries(loaded.value.jobs)) {
    map.set(
      key,
      [...entries].sort((a, b) => a.from - b.from),
    );
  }
  return loaded.problem === undefined ? { map } : { map, problem: loaded.problem };
}
