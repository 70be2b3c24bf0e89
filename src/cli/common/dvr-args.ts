import { InvalidArgumentError, type OutputConfiguration } from 'commander';
import { ParameterError } from '../../errors.js';
import { CliError, EXIT_USAGE, parseDuration, parseTimeOption } from './common.js';

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
  /** `-c`: the config whose state.dir counts refused logins (nothing else of it is used). */
  config?: string;
  forceLogin?: boolean;
}

/**
 * A DVR time to unix seconds: the grammar of every typed time (src/time-text.ts), to the whole second, not before 2000
 * (an ISO year typo would reach back before any recording: a deletion of everything).
 */
export function parseTimestamp(name: string): (text: string) => number {
  const parse = parseTimeOption(name);
  return (text) => {
    const ms = parse(text);
    if (ms % 1000 !== 0) throw new InvalidArgumentError(`${name} must be a whole second`);
    if (ms < EARLIEST_DVR_MS)
      throw new InvalidArgumentError(`${name} is before 2000-01-01 (${new Date(ms).toISOString()})`);
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
