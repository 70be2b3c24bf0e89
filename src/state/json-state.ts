import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ZodType } from 'zod';
import { CoalescedWrites } from './coalesced-writes.js';
import { replaceFile, writeFileDurably } from './durable-file.js';

/**
 * One state file's layout: a JSON object holding `version` and the fields `schema` checks. Files written before their
 * format had a version read as version 1.
 */
export interface StateFormat<T> {
  /** The version this build writes, and the newest it reads. */
  version: number;
  /** The fields other than `version`. */
  schema: ZodType<T>;
  /** What a missing or unusable file stands for. */
  empty: () => T;
}

/** What loading a state file found: its value, or the empty one and why. */
export interface LoadedState<T> {
  value: T;
  /** The file exists but its content cannot be used (not JSON, wrong shape, a newer version). */
  defect?: string;
  /** Where the damaged file was copied (when asked for and the copy could be written). */
  copy?: string;
  /** The file could not be read at all (permissions, a directory in its place). */
  readError?: NodeJS.ErrnoException;
  /** One line for a log or a report naming the file, when something was wrong (the same with or without a copy). */
  problem?: string;
}

export interface LoadOptions {
  /** Keep a copy of a damaged file (the owner does; lock-free readers such as `status` do not write). */
  keepCopy?: boolean;
}

/** Checks a state file's text: its value, or the first defect (`field: message`). */
export function parseStateText<T>(format: StateFormat<T>, text: string): { value: T } | { defect: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { defect: `not JSON: ${(err as Error).message}` };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { defect: 'file: not a JSON object' };
  const { version = 1, ...fields } = json as Record<string, unknown>;
  if (!Number.isSafeInteger(version)) return { defect: `version: not an integer (${JSON.stringify(version)})` };
  if ((version as number) > format.version) {
    const newer = `version: ${version as number} was written by a newer cdn-collector`;
    return { defect: `${newer} (this one reads ${format.version})` };
  }
  if (version !== format.version) return { defect: `version: ${version as number} is not a version this build reads` };
  const parsed = format.schema.safeParse(fields);
  if (parsed.success) return { value: parsed.data };
  const issue = parsed.error.issues[0];
  return { defect: `${issue?.path.join('.') || 'file'}: ${issue?.message ?? 'invalid'}` };
}

/** The file's text: `version` first, then the fields, on one line. */
export function encodeStateText<T>(format: StateFormat<T>, value: T & object): string {
  return `${JSON.stringify({ version: format.version, ...value })}\n`;
}

/** Reads `path`: missing → the empty value; damaged → the empty value, the defect and (if asked) a kept copy. */
export async function loadStateFile<T>(
  path: string,
  format: StateFormat<T>,
  options: LoadOptions = {},
): Promise<LoadedState<T>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    return unread(path, format, err as NodeJS.ErrnoException);
  }
  const parsed = parseStateText(format, text);
  if ('value' in parsed) return parsed;
  return damaged(path, format, parsed.defect, options.keepCopy ? await keepDamagedCopy(path, text) : undefined);
}

/** loadStateFile, synchronously (for a store built in a constructor). */
export function loadStateFileSync<T>(path: string, format: StateFormat<T>, options: LoadOptions = {}): LoadedState<T> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return unread(path, format, err as NodeJS.ErrnoException);
  }
  const parsed = parseStateText(format, text);
  if ('value' in parsed) return parsed;
  return damaged(path, format, parsed.defect, options.keepCopy ? keepDamagedCopySync(path, text) : undefined);
}

function unread<T>(path: string, format: StateFormat<T>, err: NodeJS.ErrnoException): LoadedState<T> {
  if (err.code === 'ENOENT') return { value: format.empty() };
  return { value: format.empty(), readError: err, problem: `${path}: ${err.message}` };
}

function damaged<T>(path: string, format: StateFormat<T>, defect: string, copy: string | undefined): LoadedState<T> {
  return { value: format.empty(), defect, ...(copy ? { copy } : {}), problem: `${path} is unreadable (${defect})` };
}

/**
 * The one name of a damaged file's copy: `<file>.corrupt-<content hash>`, beside it and never loaded. Named by
 * content, a restart loop over the same damage keeps one copy, not one per try.
 */
export function damagedCopyPath(path: string, text: string): string {
  return `${path}.corrupt-${createHash('sha256').update(text).digest('hex').slice(0, 12)}`;
}

/** Keeps a copy of a damaged file; undefined when none could be written (a read-only volume must not stop a start). */
export async function keepDamagedCopy(path: string, text: string): Promise<string | undefined> {
  const copy = damagedCopyPath(path, text);
  try {
    await writeFile(copy, text, { flag: 'wx', mode: 0o644 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  return copy;
}

function keepDamagedCopySync(path: string, text: string): string | undefined {
  const copy = damagedCopyPath(path, text);
  try {
    writeFileSync(copy, text, { flag: 'wx', mode: 0o644 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  return copy;
}

export interface StateFileOptions<T> {
  /** The value to write, read when a write starts (so the latest state wins). */
  current: () => T;
  /** fsync the file and its directory: for files whose loss costs data or calls. Otherwise temp file + rename. */
  durable: boolean;
  /** Create the file's directory before writing. */
  createDir?: boolean;
  /** Replaces the write (tests inject failures). */
  write?: (path: string, data: string) => Promise<void>;
  /** The first failed save of a streak. */
  onFailure?: (err: unknown) => void;
  /** A save succeeded after failures. */
  onRecovery?: () => void;
}

/** A state file saved atomically, at most one write in flight, saves requested meanwhile coalesced into one. */
export class StateFile<T extends object> {
  private readonly writes: CoalescedWrites;

  constructor(
    readonly path: string,
    readonly format: StateFormat<T>,
    options: StateFileOptions<T>,
  ) {
    const write = options.write ?? (options.durable ? writeFileDurably : replaceFile);
    this.writes = new CoalescedWrites(async () => {
      if (options.createDir) await mkdir(dirname(path), { recursive: true });
      await write(path, encodeStateText(format, options.current()));
    }, options);
  }

  get failing(): boolean {
    return this.writes.failing;
  }

  get busy(): boolean {
    return this.writes.busy;
  }

  /** Resolves once the state as of this call is written, or its write failed (reported through onFailure). */
  save(): Promise<void> {
    return this.writes.request().catch(() => {});
  }

  /** Waits for the write under way and any queued after it. */
  flush(): Promise<void> {
    return this.writes.flush();
  }
}
