/**
 * A backfill whose file sink cannot grow (here a real file size limit: `ulimit -f`, SIGXFSZ ignored, so writes fail
 * EFBIG as they fail ENOSPC on a full disk) stops after the write retry with one error line naming the cause, the
 * fix and the command that resumes it, and a non-zero exit: not round after round of retries. Needs npm run build.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOUR } from '../../src/time.js';
import { backfillArgs } from '../helpers/cli.js';
import { FAST_QUOTAS, onlyJobs, writeSimConfig } from '../helpers/collector.js';
import { useSimulator } from '../helpers/sim.js';

const BIN = resolve(import.meta.dirname, '../../bin/cdn-collector.js');

/** The CLI with a file size limit of a few KiB: its exit code and what it wrote to stderr. */
function underFileSizeLimit(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const shell = `trap '' XFSZ; ulimit -S -f 16; exec "$0" "$@"`;
  const child = spawn('sh', ['-c', shell, process.execPath, BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((done) => child.once('close', (code) => done({ code, stderr })));
}

describe('a backfill whose sink cannot grow', () => {
  const s = useSimulator({ quotas: FAST_QUOTAS });

  it('stops with the cause, the fix and the resume command in one error line, exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sink-full-'));
    // A short retry: what is tested is that the write retry ends the backfill, not how long it lasts.
    const config = writeSimConfig(dir, s.sim, {
      jobs: onlyJobs({ metrics: { window: '10m' } }),
      output: { retryFor: '3s' },
    });
    const to = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
    const { code, stderr } = await underFileSizeLimit(backfillArgs(config, to - 24 * HOUR, to));
    expect(code).toBe(1);
    const errors = stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^error: backfill stopped: .*cannot write .*out\.lp: .*\(EFBIG\); free space .*sink\.path/,
    );
    expect(errors[0]).toMatch(/resume with: cdn-collector backfill --config .* --from .* --to /);
    // What it wrote is whole lines (the failed batch was cut back).
    for (const line of readFileSync(join(dir, 'out.lp'), 'utf8').split('\n').slice(0, -1))
      expect(line).toMatch(/^cdn_metrics\S* .* \d+$/);
  }, 180_000);
});
