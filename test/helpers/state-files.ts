/**
 * The state a collector process leaves on disk: checkpoint files and dead letters, read the way an operator would read
 * them (the process itself: runCli in test/helpers/cli.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Checkpoint {
  key: string;
  watermark: number | null;
  spans: Array<[number, number]>;
}

/** Every checkpoint file of a state directory, by job key (files are replaced atomically, so reads are whole). */
export function readCheckpoints(stateDir: string): Map<string, Checkpoint> {
  const out = new Map<string, Checkpoint>();
  if (!existsSync(stateDir)) return out;
  for (const name of readdirSync(stateDir)) {
    if (!/^cp-.*\.json$/.test(name)) continue;
    let cp: Checkpoint;
    try {
      cp = JSON.parse(readFileSync(join(stateDir, name), 'utf8')) as Checkpoint;
    } catch {
      continue; // removed between readdir and read
    }
    out.set(cp.key, cp);
  }
  return out;
}

/** Confirmed milliseconds summed over every key: progress of a run, as the state directory shows it. */
export function confirmedMs(checkpoints: Map<string, Checkpoint>): number {
  let total = 0;
  for (const cp of checkpoints.values()) for (const [from, to] of cp.spans) total += to - from;
  return total;
}

/**
 * Problems if `after` moved backwards from `before`: a lower watermark, or a span confirmed before that is no longer
 * covered. Empty when state only grew.
 */
export function regressions(before: Map<string, Checkpoint>, after: Map<string, Checkpoint>): string[] {
  const problems: string[] = [];
  for (const [key, old] of before) {
    const now = after.get(key);
    if (!now) {
      problems.push(`${key}: checkpoint file disappeared`);
      continue;
    }
    if (old.watermark !== null && (now.watermark === null || now.watermark < old.watermark)) {
      problems.push(`${key}: watermark ${old.watermark} → ${now.watermark}`);
    }
    for (const [from, to] of old.spans) {
      if (!now.spans.some(([f, t]) => f <= from && to <= t))
        problems.push(`${key}: span ${from}–${to} no longer confirmed`);
    }
  }
  return problems;
}

/** The dead-letter file's entries (none when the file does not exist). */
export function readDeadLetters(path: string): Array<{ status: number; reason: string; lines: string[] }> {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { status: number; reason: string; lines: string[] });
}
