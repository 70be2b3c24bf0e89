import { describe, expect, it } from 'vitest';
import type { PassResult } from '../../src/collector/collector.js';
import {
  EXIT_POINTS_REFUSED,
  EXIT_SET_ASIDE,
  EXIT_WINDOWS_FAILED,
  onceVerdict,
  verdictExitCode,
  verdictLine,
} from '../../src/cli/common/verdict.js';
import { runCli } from '../helpers/cli.js';
import { ensureBuilt } from '../ops/entry.js';

const calls = { calls: 7, quotaRejections: 0, failures: 0 };
const ok: PassResult = { key: 'metrics/acme', spans: 24, points: 48, setAside: 0 };

/** `run --once` says when the database refused points: the count, the word, and its own exit code. */
describe('run --once verdict with points refused', () => {
  it('every window collected but points refused: POINTS REFUSED, the count, exit 5', () => {
    const v = onceVerdict([ok], () => 0, calls, 48);
    expect(verdictLine(v)).toBe(
      'once: POINTS REFUSED: 24 windows collected, 0 set aside, 0 failed; 48 points, 48 points refused by the ' +
        'database (dead letters); 7 calls, 0 answered 429',
    );
    expect(verdictExitCode(v)).toBe(EXIT_POINTS_REFUSED);
  });

  it('nothing refused: the line and exit 0 are as before', () => {
    const v = onceVerdict([ok], () => 0, calls);
    expect(verdictLine(v)).toBe(
      'once: ok: 24 windows collected, 0 set aside, 0 failed; 48 points; 7 calls, 0 answered 429',
    );
    expect(verdictExitCode(v)).toBe(0);
  });

  it('failed windows outrank refused points, which outrank set-aside windows', () => {
    const failed = onceVerdict([{ ...ok, error: 'down' }], () => 3, calls, 5);
    expect(verdictExitCode(failed)).toBe(EXIT_WINDOWS_FAILED);
    expect(failed).toMatchObject({ failed: 3, failedJobs: 1, points: 48, refused: 5 });
    const aside = onceVerdict([{ ...ok, setAside: 2 }], () => 0, calls, 5);
    expect(verdictExitCode(aside)).toBe(EXIT_POINTS_REFUSED);
    expect(verdictExitCode(onceVerdict([{ ...ok, setAside: 2 }], () => 0, calls))).toBe(EXIT_SET_ASIDE);
    expect(new Set([EXIT_SET_ASIDE, EXIT_WINDOWS_FAILED, EXIT_POINTS_REFUSED, 0, 1, 2]).size).toBe(6);
  });

  it('run --help and backfill --help document exit 5', async () => {
    ensureBuilt();
    const run = await runCli(['run', '--help']).exited;
    expect(run.stdout).toMatch(
      /^ {2}5 {2}--once: points refused by the database for good \(field type conflict, beyond the retention$/m,
    );
    const backfill = await runCli(['backfill', '--help']).exited;
    expect(backfill.stdout).toMatch(/^ {2}5 {2}complete, but the database refused points for good/m);
  }, 60_000);
});
