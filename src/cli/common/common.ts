import { writeFile } from 'node:fs/promises';
import { InvalidArgumentError, Option } from 'commander';
import { durationMs } from '../../duration-text.js';
import { fieldsOfVariables } from '../../config/env.js';
import { CollectorError, type ErrorCode } from '../../errors.js';
import { parseTimeText } from '../../time-text.js';

/** Exit code for bad input (arguments, config): nothing was called, written or deleted. */
export const EXIT_USAGE = 2;
/** Exit code of every other failure. */
export const EXIT_FAILURE = 1;
/** `verify`'s exit code when drift is found (after --repair: when the re-check still finds some). */
export const EXIT_DRIFT = 3;

/**
 * A command failed with a message meant for the user; main prints it and exits with `exitCode`: bad input
 * (`CDN_ERR_USAGE`, exit 2) or a command that could not finish (`CDN_ERR_COMMAND`, exit 1).
 */
export class CliError extends CollectorError {
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
const EXIT_CODES: Partial<Record<ErrorCode, number>> = {
  CDN_ERR_USAGE: EXIT_USAGE,
  CDN_ERR_CONFIG: EXIT_USAGE,
  CDN_ERR_LOGINS_STOPPED: EXIT_USAGE,
};

/** The process exit code for an error of the collector's family, by its code. */
export function exitCodeOf(err: CollectorError): number {
  return EXIT_CODES[err.code] ?? EXIT_FAILURE;
}

/**
 * A listener that could not start as one line naming what sets it: a port in use names the port's setting, an address
 * this host does not have (or may not use) the host's. Undefined for any other error.
 */
export function listenError(
  err: unknown,
  address: string,
  settings: { port: string; host: string },
): CliError | undefined {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return new CliError(`${settings.port}: address ${address} is already in use`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES') {
    return new CliError(`${settings.host}: cannot listen on ${address} (${code})`);
  }
  return undefined;
}

export function parseIntArg(name: string, min = 0, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\s*-?\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(
        `${name} must be an integer ${max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`}`,
      );
    }
    return n;
  };
}

/** A positive number (`--clock-speed 2.5`); 0, negatives and text are usage errors naming the option. */
export function parsePositive(name: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n <= 0)
      throw new InvalidArgumentError(`${name} must be a positive number`);
    return n;
  };
}

/**
 * `--write <file>`: the text to the file; a path that cannot be written (a missing folder, a directory) is a usage
 * error naming the option, never a stack.
 */
export async function writeOutput(path: string, text: string): Promise<void> {
  try {
    await writeFile(path, text);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'its folder does not exist' : code === 'EISDIR' ? 'it is a directory' : (code ?? String(err));
    throw new CliError(`--write ${path}: cannot write (${why}); nothing was written`, EXIT_USAGE);
  }
}

/** `--force-login` of every command that logs in: one login past a stop by earlier refused logins. */
export function forceLoginOption(): Option {
  return new Option(
    '--force-login',
    'send one login even though earlier refused logins (of any process on the state dir) stopped them; use it once ' +
      'the password is fixed: a login that succeeds clears the count',
  );
}

/** `-c, --config` of `api` and `dvr`: only its state.dir is read, where refused logins are counted. */
export function loginStateOption(): Option {
  return new Option(
    '-c, --config <file>',
    'count refused logins in the state.dir of this config (default: ./state); nothing else of it is used',
  );
}

/** `-c, --config <file>` of the commands that read a configuration: optional, as every field can come from env. */
export function configFileOption(): Option {
  return new Option(
    '-c, --config <file>',
    'YAML configuration (see config/collector.example.yaml); without it, the environment alone',
  );
}

/** What a stop signal does to a command that ends when its work is done (the exit codes of signals.ts). */
export const STOPPED_HELP =
  '130  stopped by Ctrl-C (143: SIGTERM, 129: SIGHUP) before its work was done: it finished the calls in flight\n' +
  '     and kept what they collected; a second Ctrl-C a second later quits at once';

/**
 * The help text after the options of a command that reads the configuration (as `dvr --help` has): every
 * environment variable with the field it sets, the precedence, and the command's exit codes (`failure`: what 1 means;
 * `stopped`: what a stop signal makes of it).
 */
export function configHelp(
  failure: string,
  success = 'done',
  moreCodes: readonly string[] = [],
  stopped = STOPPED_HELP,
): () => string {
  return () => {
    const fieldsOf = fieldsOfVariables();
    const width = Math.max(...[...fieldsOf.keys()].map((name) => name.length));
    const rows = [...fieldsOf].map(([name, paths]) => `  ${name.padEnd(width)}  ${[...paths].join(', ')}`);
    return [
      '',
      'Environment (sets the config field; precedence: flag > environment > config file > default;',
      'reference: docs/configuration.md):',
      ...rows,
      `  ${'CDN_SHARD'.padEnd(width)}  --shard`,
      `  ${'NO_COLOR'.padEnd(width)}  no colours even on a terminal`,
      'Exit codes:',
      `  0  ${success}`,
      `  1  ${failure}`,
      '  2  bad arguments or configuration (nothing was called or written)',
      ...[...moreCodes, ...stopped.split('\n')].map((line) => `  ${line}`),
    ].join('\n');
  };
}

/** `500ms`, `2s`, `5m`, `1h`, `7d`, or a bare number of milliseconds (the grammar: config/duration.ts). */
export function parseDuration(text: string): number {
  const ms = durationMs(text, 'ms');
  if (ms === undefined) throw new InvalidArgumentError(`"${text}" is not a duration (e.g. 500ms, 2s, 5m, 1h, 7d)`);
  return ms;
}

/**
 * A time option (`--from`, `--to`) to epoch ms, by the one grammar of typed times (src/time-text.ts: ISO 8601, unix
 * seconds, now, today, yesterday, ± an offset). Anything else is a usage error naming the option, never a guessed date.
 */
export function parseTimeOption(name: string, now: () => number = Date.now): (text: string) => number {
  return (text) => {
    const time = parseTimeText(text, now());
    if ('error' in time) throw new InvalidArgumentError(`${name} ${time.error}`);
    return time.ms;
  };
}

/** Collects a repeatable option into an array. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
