import { InvalidArgumentError, type OutputConfiguration } from 'commander';
import { ParameterError } from '../errors.js';
import { parseIsoTime } from '../time.js';
import { CliError, EXIT_USAGE, parseDuration } from './common.js';

/** Where the `dvr` command writes and what it reads; injectable so tests run it in-process. */
export interface DvrIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  env: Record<string, string | undefined>;
  /** Where commander writes help and argument errors (default: the process's streams). */
  output?: OutputConfiguration;
}

export interface ConnectionOptions {
  baseUrl?: string;
  token?: string;
  tokenFile?: string;
  username?: string;
  passwordFile?: string;
}

/**
 * Unix seconds (`1767225600`) or strict ISO 8601 (`2026-01-01T00:00:00Z`; no zone = UTC), to the second. Nothing else
 * (`-5`, `1.5`, `Nov 23`, `yesterday 5`): JavaScript's date parser guesses, and a guessed start deletes a whole DVR.
 */
export function parseTimestamp(name: string): (text: string) => number {
  return (text) => {
    const ms = /^\d+$/.test(text) ? Number(text) * 1000 : (parseIsoTime(text) ?? Number.NaN);
    if (!Number.isSafeInteger(ms) || ms < 0) {
      throw new InvalidArgumentError(`${name} must be unix seconds or ISO 8601 (e.g. 2026-01-01T00:00:00Z)`);
    }
    if (ms % 1000 !== 0) throw new InvalidArgumentError(`${name} must be a whole second`);
    // A year typed as seconds (`2026` → 1970) would reach back before any recording: a deletion of everything.
    if (ms < EARLIEST_DVR_MS) {
      throw new InvalidArgumentError(`${name} is before 2000-01-01 (${new Date(ms).toISOString()}): unix seconds have 10 digits, e.g. 1767225600`);
    }
    return ms / 1000;
  };
}

const EARLIEST_DVR_MS = Date.UTC(2000, 0, 1);

/** Whole seconds: `90`, or with a unit `90s`, `5m`, `1h`. */
export function parseSeconds(name: string): (text: string) => number {
  return (text) => {
    let ms: number;
    try {
      ms = /^\d+$/.test(text) ? Number(text) * 1000 : parseDuration(text);
    } catch {
      ms = Number.NaN;
    }
    if (!Number.isSafeInteger(ms / 1000) || ms <= 0) {
      throw new InvalidArgumentError(`${name} must be a positive number of whole seconds (e.g. 90, 90s, 5m)`);
    }
    return ms / 1000;
  };
}

/** JSON with --json, or by default when stdout is not a terminal (pipes, files); --table forces the table. */
export function wantsJson(o: { json?: boolean; table?: boolean }, io: DvrIo): boolean {
  if (o.json) return true;
  if (o.table) return false;
  return !io.stdout.isTTY;
}

/** A spec rule broken by the arguments is a usage error (exit 2), like any other bad argument. */
export async function asUsageError<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ParameterError) throw new CliError(err.message, EXIT_USAGE);
    throw err;
  }
}
