import { InvalidArgumentError } from 'commander';
import { durationMs } from '../config/duration.js';
import { CollectorError, type ErrorCode } from '../errors.js';
import { parseIsoTime } from '../time.js';

/** Exit code for bad input (arguments, config): nothing was called, written or deleted. */
export const EXIT_USAGE = 2;
/** Exit code of every other failure. */
export const EXIT_FAILURE = 1;

/**
 * A command failed with a message meant for the user; main prints it and exits with `exitCode`: bad input
 * (`CDN_ERR_USAGE`, exit 2) or a command that could not finish (`CDN_ERR_COMMAND`, exit 1).
 */
export class CliError extends CollectorError {
  override name = 'CliError';
  override readonly code: 'CDN_ERR_USAGE' | 'CDN_ERR_COMMAND';
  constructor(
    message: string,
    readonly exitCode: typeof EXIT_FAILURE | typeof EXIT_USAGE = EXIT_FAILURE,
  ) {
    super(message);
    this.code = exitCode === EXIT_USAGE ? 'CDN_ERR_USAGE' : 'CDN_ERR_COMMAND';
  }
}

/** Codes whose exit code is not EXIT_FAILURE: input refused before anything was called, written or deleted. */
const EXIT_CODES: Partial<Record<ErrorCode, number>> = { CDN_ERR_USAGE: EXIT_USAGE, CDN_ERR_CONFIG: EXIT_USAGE };

/** The process exit code for an error of the collector's family, by its code. */
export function exitCodeOf(err: CollectorError): number {
  return EXIT_CODES[err.code] ?? EXIT_FAILURE;
}

export function parseIntArg(name: string, min = 0): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${name} must be an integer ≥ ${min}`);
    return n;
  };
}

/** `500ms`, `2s`, `5m`, `1h`, `7d`, or a bare number of milliseconds (the grammar: config/duration.ts). */
export function parseDuration(text: string): number {
  const ms = durationMs(text, 'ms');
  if (ms === undefined) throw new InvalidArgumentError(`"${text}" is not a duration (e.g. 500ms, 2s, 5m, 1h, 7d)`);
  return ms;
}

/**
 * A time option: strict ISO 8601 only (`2026-11-23T10:00:00Z`, an offset, or no zone = UTC), to epoch ms. Anything
 * else (`-5`, `Nov 23`, `01/11/2026`, `yesterday 5`) is a usage error naming the option, never a guessed date.
 */
export function parseTimeOption(name: string): (text: string) => number {
  return (text) => {
    const ms = parseIsoTime(text);
    if (ms === undefined) throw new InvalidArgumentError(`${name} must be ISO 8601, e.g. 2026-11-23T10:00:00Z (UTC when no zone)`);
    return ms;
  };
}

/** Collects a repeatable option into an array. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
