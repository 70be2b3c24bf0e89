import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { CheckpointCorruptError } from './errors.js';
import { implausibleTime } from './plausible.js';
import type { Span } from './spans.js';

/** What is persisted for one job key. Immutable: every change produces a new value. */
export interface KeyState {
  spans: readonly Span[];
  watermark: number | undefined;
  /** When a confirmation last changed the file (checkpoint age). */
  confirmedAt: number | undefined;
}

export const EMPTY_STATE: KeyState = { spans: [], watermark: undefined, confirmedAt: undefined };

const FILE_PREFIX = 'cp-';
const FILE_SUFFIX = '.json';
const FORMAT_VERSION = 1;

const epochMs = z.number().int().safe();
const fileSchema = z
  .object({
    version: z.literal(FORMAT_VERSION),
    key: z.string().min(1),
    watermark: epochMs.nullable(),
    confirmedAt: epochMs.nullable(),
    spans: z.array(z.tuple([epochMs, epochMs])),
  })
  .strict();

export function isCheckpointFile(name: string): boolean {
  return name.startsWith(FILE_PREFIX) && name.endsWith(FILE_SUFFIX);
}

/**
 * Keys contain slashes and names a provider lets users choose, so the file name is a readable slug plus a hash of
 * the exact key (the key itself is stored inside the file).
 */
export function fileNameOf(key: string): string {
  const slug = key.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 60);
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 16);
  return `${FILE_PREFIX}${slug}-${hash}${FILE_SUFFIX}`;
}

export function encodeState(key: string, state: KeyState): string {
  return `${JSON.stringify({
    version: FORMAT_VERSION,
    key,
    watermark: state.watermark ?? null,
    confirmedAt: state.confirmedAt ?? null,
    spans: state.spans.map((s) => [s.from, s.to]),
  })}\n`;
}

/**
 * Parses and checks a checkpoint file, its times included (plausible at `now`); any defect is a
 * CheckpointCorruptError naming `path`.
 */
export function decodeState(path: string, fileName: string, text: string, now: number): { key: string; state: KeyState } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new CheckpointCorruptError(path, `not JSON: ${(err as Error).message}`);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CheckpointCorruptError(path, `${issue?.path.join('.') || 'file'}: ${issue?.message ?? 'invalid'}`);
  }
  const { key, watermark, confirmedAt } = parsed.data;
  if (fileNameOf(key) !== fileName) throw new CheckpointCorruptError(path, `holds key ${JSON.stringify(key)}, which belongs in ${fileNameOf(key)}`);
  const check = (where: string, ms: number | null) => {
    const problem = ms === null ? undefined : implausibleTime(ms, now);
    if (problem) throw new CheckpointCorruptError(path, `${where}: ${problem}`);
  };
  check('watermark', watermark); // confirmedAt only dates the checkpoint, it does not steer collection
  const spans = parsed.data.spans.map(([from, to]) => ({ from, to }));
  spans.forEach((s, i) => {
    const previous = spans[i - 1];
    if (s.from >= s.to) throw new CheckpointCorruptError(path, `spans.${i}: empty or reversed span`);
    if (previous && s.from <= previous.to) throw new CheckpointCorruptError(path, `spans.${i}: not sorted and disjoint`);
    check(`spans.${i} start`, s.from);
    check(`spans.${i} end`, s.to);
  });
  return { key, state: { spans, watermark: watermark ?? undefined, confirmedAt: confirmedAt ?? undefined } };
}

/**
 * Keeps a copy of a damaged checkpoint file beside it (`<file>.corrupt-<content hash>`, which is not loaded), so the
 * evidence survives a repair. Named by content, a restart loop over the same damage keeps one copy, not one per try.
 * Resolves undefined when no copy could be written (read-only volume): the refusal must not depend on it.
 */
export async function keepCorruptCopy(path: string, text: string): Promise<string | undefined> {
  const copy = `${path}.corrupt-${createHash('sha256').update(text).digest('hex').slice(0, 12)}`;
  try {
    await writeFile(copy, text, { flag: 'wx', mode: 0o644 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  return copy;
}
