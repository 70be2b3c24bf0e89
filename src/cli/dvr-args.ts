import { readFileSync } from 'node:fs';
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
}

/** Shown when the token is an argument: every local user can read it from `ps` or /proc/<pid>/cmdline. */
export const TOKEN_ARGUMENT_WARNING =
  'warning: --token is visible to other users of this machine (ps); prefer CDN_TOKEN or --token-file <path>\n';

/**
 * `--base-url`, else `CDN_BASE_URL`; the token from `--token-file`, `--token` (with a warning on `warn`) or
 * `CDN_TOKEN`. A missing one is a usage error naming its sources; the token itself is never part of a message.
 */
export function resolveConnection(
  o: ConnectionOptions,
  env: DvrIo['env'],
  warn: (text: string) => void = (text) => process.stderr.write(text),
): { baseUrl: string; token: string } {
  const baseUrl = o.baseUrl ?? env.CDN_BASE_URL;
  if (o.token !== undefined && o.tokenFile !== undefined) throw new CliError('give either --token or --token-file, not both', EXIT_USAGE);
  if (o.token !== undefined) warn(TOKEN_ARGUMENT_WARNING);
  const token = o.tokenFile !== undefined ? readTokenFile(o.tokenFile) : (o.token ?? env.CDN_TOKEN);
  if (!baseUrl) throw new CliError('missing base URL: pass --base-url or set CDN_BASE_URL', EXIT_USAGE);
  if (!token) throw new CliError('missing token: set CDN_TOKEN or pass --token-file <path>', EXIT_USAGE);
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) {
    throw new CliError('--base-url must be an http(s) URL', EXIT_USAGE);
  }
  return { baseUrl, token };
}

/** The first line of a token file (trailing newline and spaces removed), e.g. a mounted secret. */
function readTokenFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(`--token-file: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, EXIT_USAGE);
  }
  const token = text.split(/\r?\n/)[0]!.trim();
  if (!token) throw new CliError(`--token-file: ${path} is empty`, EXIT_USAGE);
  return token;
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
