/**
 * The files of a command handed to the daemon that holds the state directory (a backfill, a verify): a request per
 * id that the daemon polls, and the answer files it writes beside it. Each file is replaced atomically (no fsync: a
 * machine crash ends the command that follows the file anyway), so readers see whole versions.
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CollectorError } from '../errors.js';
import { replaceFile } from './durable-file.js';
import { encodeStateText, loadStateFile, type StateFormat } from './json-state.js';

/** Hand-over files: a missing one reads as undefined. */
export const missingReadsAsNothing = () => undefined;

/** The process holding the state directory did not pick a handed-over request up in time: it is no running daemon. */
export class HandOverNotTakenError extends CollectorError {
  override readonly code = 'CDN_ERR_HANDOVER_NOT_TAKEN';
  constructor(
    readonly command: 'backfill' | 'verify',
    /** What else may hold the directory, as the message guesses it. */
    holder: string,
  ) {
    super(
      `the process holding the state directory did not take the ${command} request: it is not a running daemon ` +
        `(${holder}?). Wait for it to end, or stop it`,
    );
  }
}

/** The file's content, or undefined when it is missing; a file that cannot be read throws. */
export async function readHandOverFile<T>(path: string, format: StateFormat<T | undefined>): Promise<T | undefined> {
  const loaded = await loadStateFile(path, format);
  if (loaded.readError) throw loaded.readError;
  return loaded.value;
}

export async function writeHandOverFile<T extends object>(
  path: string,
  format: StateFormat<T | undefined>,
  value: T,
): Promise<void> {
  await replaceFile(path, encodeStateText(format, value));
}

/** A request, in a directory made when it is the first. */
export async function writeHandOverRequest<T extends object>(
  dir: string,
  name: string,
  format: StateFormat<T | undefined>,
  value: T,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeHandOverFile(join(dir, name), format, value);
}

/**
 * The requests (files named `<id><suffix>`) in `dir`, oldest first, and the names of every file there (none when the
 * directory does not exist yet).
 */
export async function readHandOverRequests<T extends { requestedAt: number }>(
  dir: string,
  suffix: string,
  format: StateFormat<T | undefined>,
): Promise<{ requests: T[]; names: string[] }> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { requests: [], names: [] };
    throw err;
  }
  const requests: T[] = [];
  for (const name of names.filter((n) => n.endsWith(suffix))) {
    const request = await readHandOverFile(join(dir, name), format);
    if (request !== undefined) requests.push(request);
  }
  return { requests: requests.sort((a, b) => a.requestedAt - b.requestedAt), names };
}

/** Removes the files of one id (the command does once it has read the final answer). */
export async function removeHandOverFiles(dir: string, id: string, suffixes: readonly string[]): Promise<void> {
  await Promise.all(suffixes.map((suffix) => rm(join(dir, `${id}${suffix}`), { force: true })));
}
