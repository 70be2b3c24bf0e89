import { createHash } from 'node:crypto';
import { z } from 'zod';
import { CheckpointCorruptError } from './errors.js';
import { encodeStateText, parseStateText, type StateFormat } from './json-state.js';
import { implausibleTime } from './plausible.js';
import type { Span } from '../spans.js';

/** What is persisted for one job key. Immutable: every change produces a new value. */
export interface KeyState {
  spans: readonly Span[];
  watermark: number | undefined;
  /** When a confirmation last changed the file (checkpoint age). */
  confirmedAt: number | undefined;
  /**
   * Where the daemon's gap filling starts (set by the daemon's own passes only; a backfill's spans never move it).
   * Undefined until the daemon's first pass of the key.
   */
  origin: number | undefined;
  /** The `state.initialLookback` the origin was set with: a larger one moves the origin back (pending.ts). */
  originLookback: number | undefined;
}

export const EMPTY_STATE: KeyState = {
  spans: [],
  watermark: undefined,
  confirmedAt: undefined,
  origin: undefined,
  originLookback: undefined,
};

const FILE_PREFIX = 'cp-';
const FILE_SUFFIX = '.json';

const epochMs = z.number().int().safe();
const fileSchema = z
  .object({
    key: z.string().min(1),
    watermark: epochMs.nullable(),
    confirmedAt: epochMs.nullable(),
    spans: z.array(z.tuple([epochMs, epochMs])),
    /** Absent in files written before the daemon kept its origin: then their oldest confirmed span is the origin. */
    origin: epochMs.nullable().optional(),
    originLookback: z.number().int().min(0).nullable().optional(),
  })
  .strict();
/** A missing checkpoint file is a job never collected; the store never loads one that is absent. */
const checkpointFormat: StateFormat<z.output<typeof fileSchema>> = {
  version: 1,
  schema: fileSchema,
  empty: () => ({ key: '', watermark: null, confirmedAt: null, spans: [] }),
};

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
  return encodeStateText(checkpointFormat, {
    key,
    watermark: state.watermark ?? null,
    confirmedAt: state.confirmedAt ?? null,
    spans: state.spans.map((s): [number, number] => [s.from, s.to]),
    origin: state.origin ?? null,
    originLookback: state.originLookback ?? null,
  });
}

/**
 * Parses and checks a checkpoint file, its times included (plausible at `now`); any defect is a
 * CheckpointCorruptError naming `path`.
 */
export function decodeState(
  path: string,
  fileName: string,
  text: string,
  now: number,
): { key: string; state: KeyState } {
  const parsed = parseStateText(checkpointFormat, text);
  if ('defect' in parsed) throw new CheckpointCorruptError(path, parsed.defect);
  const { key, watermark, confirmedAt } = parsed.value;
  if (fileNameOf(key) !== fileName)
    throw new CheckpointCorruptError(path, `holds key ${JSON.stringify(key)}, which belongs in ${fileNameOf(key)}`);
  const check = (where: string, ms: number | null) => {
    const problem = ms === null ? undefined : implausibleTime(ms, now);
    if (problem) throw new CheckpointCorruptError(path, `${where}: ${problem}`);
  };
  check('watermark', watermark); // confirmedAt only dates the checkpoint, it does not steer collection
  const spans = parsed.value.spans.map(([from, to]) => ({ from, to }));
  spans.forEach((s, i) => {
    const previous = spans[i - 1];
    if (s.from >= s.to) throw new CheckpointCorruptError(path, `spans.${i}: empty or reversed span`);
    if (previous && s.from <= previous.to)
      throw new CheckpointCorruptError(path, `spans.${i}: not sorted and disjoint`);
    check(`spans.${i} start`, s.from);
    check(`spans.${i} end`, s.to);
  });
  // A file from before origins were kept: its oldest confirmed span was the origin then, and stays it (nothing the
  // daemon already owed is dropped).
  const kept = parsed.value.origin;
  const origin = kept === undefined ? spans[0]?.from : (kept ?? undefined);
  if (origin !== undefined) check('origin', origin);
  const originLookback = parsed.value.originLookback ?? undefined;
  const times = { watermark: watermark ?? undefined, confirmedAt: confirmedAt ?? undefined };
  return { key, state: { spans, ...times, origin, originLookback } };
}
