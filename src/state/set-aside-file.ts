import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

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
const FORMAT_VERSION = 1;

const epochMs = z.number().int().safe();
const fileSchema = z
  .object({
    version: z.literal(FORMAT_VERSION),
    jobs: z.record(
      z.string().min(1),
      z.array(
        z
          .object({
            from: epochMs,
            to: epochMs,
            reason: z.string(),
            firstAt: epochMs,
            attempts: z.number().int().min(1),
            nextRetryAt: epochMs,
          })
          .strict()
          .refine((e) => e.from < e.to, 'empty or reversed span'),
      ),
    ),
  })
  .strict();

export function encodeSetAside(map: SetAsideMap): string {
  const jobs = Object.fromEntries([...map].filter(([, entries]) => entries.length > 0).sort(([a], [b]) => a.localeCompare(b)));
  return `${JSON.stringify({ version: FORMAT_VERSION, jobs }, null, 1)}\n`;
}

/** Parses the file's text; throws an Error describing the first defect. */
export function decodeSetAside(text: string): Map<string, SetAsideEntry[]> {
  const parsed = fileSchema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${issue?.path.join('.') || 'file'}: ${issue?.message ?? 'invalid'}`);
  }
  const map = new Map<string, SetAsideEntry[]>();
  for (const [key, entries] of Object.entries(parsed.data.jobs)) map.set(key, [...entries].sort((a, b) => a.from - b.from));
  return map;
}

/**
 * Reads `dir`'s set-aside list without any lock (the file is replaced atomically, so a reader sees a whole version).
 * A missing file is an empty list; an unreadable one is reported as `problem` with an empty list.
 */
export async function readSetAside(dir: string): Promise<{ map: Map<string, SetAsideEntry[]>; problem?: string }> {
  const path = join(dir, SET_ASIDE_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { map: new Map() };
    return { map: new Map(), problem: `${path}: ${(err as Error).message}` };
  }
  try {
    return { map: decodeSetAside(text) };
  } catch (err) {
    return { map: new Map(), problem: `${path} is unreadable (${(err as Error).message})` };
  }
}
