import { InvalidArgumentError } from 'commander';

/** Exit code for bad input (arguments, config): nothing was called, written or deleted. */
export const EXIT_USAGE = 2;

/** A command failed with a message meant for the user; main prints it and exits with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export function parseIntArg(name: string, min = 0): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${name} must be an integer ≥ ${min}`);
    return n;
  };
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `500ms`, `2s`, `5m`, `1h`, `7d`, or a bare number of milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!m) throw new InvalidArgumentError(`"${text}" is not a duration (e.g. 500ms, 2s, 5m, 1h, 7d)`);
  return Number(m[1]) * UNITS[m[2] ?? 'ms']!;
}

/** Collects a repeatable option into an array. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
