import { copyFileSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { perApi, type ApiName } from '../spec/apis.js';
import { asStateIoError } from './errors.js';

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
const fileSchema = z
  .object(perApi(() => entrySchema))
  .partial()
  .strict();

/**
 * Reads the journal at `path` as of wall time `now`. Missing: empty. Damaged (not JSON, wrong shape, absurd counts):
 * a copy is kept next to it and the caller assumes the worst. Completion times in the future (the wall clock was set
 * back, or the file came from a machine ahead of us) are clamped to `now`; calls left in flight count as completed
 * at `now` (they may have reached the server up to now). Other read errors are a StateIoError.
 */
export function loadJournal(path: string, now: number): LoadedJournal {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'ok', entries: {}, future: { count: 0, aheadMs: 0 } };
    throw asStateIoError(err, path) ?? err;
  }
  const checked = validate(text);
  if (typeof checked === 'string') return { kind: 'damaged', problem: checked, copy: keepCopy(path, now) };
  const entries: Entries = {};
  const future = { count: 0, aheadMs: 0 };
  for (const [api, entry] of Object.entries(checked.entries) as Array<[ApiName, Entry]>) {
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

function validate(text: string): string | { entries: Entries } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return `not JSON (${(err as Error).message})`;
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return `${issue.path.join('.') || 'top level'}: ${issue.message}`;
  }
  return { entries: parsed.data };
}

/** Keeps the damaged file for inspection; undefined when even that fails (a full disk). */
function keepCopy(path: string, now: number): string | undefined {
  const copy = `${path}.corrupt-${new Date(now).toISOString().replace(/[:.]/g, '-')}`;
  try {
    copyFileSync(path, copy);
    return copy;
  } catch {
    return undefined;
  }
}
