import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliError, EXIT_USAGE, exitCodeOf } from '../../src/cli/common/common.js';
import { ConfigError } from '../../src/config/loader.js';
import { CollectorError, errorCodeOf, ParameterError } from '../../src/errors.js';
import { StateIoError } from '../../src/state/errors.js';

const SRC = join(import.meta.dirname, '../../src');
const sources = (readdirSync(SRC, { recursive: true, encoding: 'utf8' }) as string[])
  .filter((f) => f.endsWith('.ts'))
  .map((f) => readFileSync(join(SRC, f), 'utf8'));

/** The codes of the table in docs/design.md (first column). */
function documentedCodes(): string[] {
  const design = readFileSync(join(import.meta.dirname, '../../docs/design.md'), 'utf8');
  return [...design.matchAll(/^\| `(CDN_ERR_[A-Z_]+)` \|/gm)].map((m) => m[1]!);
}

describe('error codes', () => {
  it('each error class declares its own code, and docs/design.md lists exactly the codes the code uses', () => {
    const declared = sources.flatMap((text) =>
      [...text.matchAll(/override readonly code = '(CDN_ERR_[A-Z_]+)'/g)].map((m) => m[1]!),
    );
    expect(new Set(declared).size, 'one code per class').toBe(declared.length);
    const used = new Set(sources.flatMap((text) => [...text.matchAll(/'(CDN_ERR_[A-Z_]+)'/g)].map((m) => m[1]!)));
    const documented = documentedCodes();
    expect(new Set(documented).size).toBe(documented.length);
    expect([...used].sort()).toEqual([...documented].sort());
  });

  it('the exit code follows the code: usage and config errors 2, every other error of the family 1', () => {
    expect(new CliError('bad flag', EXIT_USAGE)).toMatchObject({ code: 'CDN_ERR_USAGE', exitCode: 2 });
    expect(new CliError('backfill incomplete')).toMatchObject({ code: 'CDN_ERR_COMMAND', exitCode: 1 });
    expect(new CliError('x')).toBeInstanceOf(CollectorError);
    for (const err of [new CliError('bad flag', EXIT_USAGE), new CliError('failed')])
      expect(exitCodeOf(err)).toBe(err.exitCode);
    expect(exitCodeOf(new ConfigError('jobs.metrics.window', 'too long'))).toBe(2);
    expect(exitCodeOf(new ParameterError('start', 'not a minute'))).toBe(1);
  });

  it('a system error code stays apart from the machine code', () => {
    const err = new StateIoError('/state', 'ENOSPC');
    expect([err.code, err.causeCode]).toEqual(['CDN_ERR_STATE_IO', 'ENOSPC']);
    expect(errorCodeOf(new TypeError('bug'))).toBe('CDN_ERR_UNEXPECTED');
  });
});
