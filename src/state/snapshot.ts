import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeState, isCheckpointFile } from './checkpoint-file.js';
import { readSetAside, type SetAsideEntry } from './set-aside-file.js';

export interface JobSnapshot {
  watermark: number | undefined;
  lastConfirmedAt: number | undefined;
  setAside: SetAsideEntry[];
}

export interface StateSnapshot {
  /** Per job key found in the state directory. */
  jobs: Map<string, JobSnapshot>;
  /** Files that could not be read, one sentence each. */
  problems: string[];
}

/**
 * What the state directory says now, read WITHOUT the lock, so it works while the daemon runs: every file is replaced
 * atomically (rename), so each read sees one whole version. Defects are listed, not thrown: this is for diagnosis.
 */
export async function readStateSnapshot(dir: string, now: number): Promise<StateSnapshot> {
  const jobs = new Map<string, JobSnapshot>();
  const problems: string[] = [];
  let names: string[];
  try {
    names = (await readdir(dir)).filter(isCheckpointFile).sort();
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    return {
      jobs,
      problems: [missing ? `${dir} does not exist (no pass has run yet)` : `${dir}: ${(err as Error).message}`],
    };
  }
  const entry = (key: string) =>
    jobs.get(key) ?? jobs.set(key, { watermark: undefined, lastConfirmedAt: undefined, setAside: [] }).get(key)!;
  for (const name of names) {
    const path = join(dir, name);
    try {
      const { key, state } = decodeState(path, name, await readFile(path, 'utf8'), now);
      Object.assign(entry(key), { watermark: state.watermark, lastConfirmedAt: state.confirmedAt });
    } catch (err) {
      // A file removed between readdir and read (compaction never removes; an operator may) is not a defect.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') problems.push((err as Error).message);
    }
  }
  const aside = await readSetAside(dir);
  if (aside.problem) problems.push(aside.problem);
  for (const [key, entries] of aside.map) entry(key).setAside = entries;
  return { jobs, problems };
}
