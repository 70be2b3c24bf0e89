/**
 * A backfill whose file sink cannot grow (here a real file size limit: `ulimit -f`, SIGXFSZ ignored, so writes fail
 * EFBIG as they fail ENOSPC on a full disk) stops after the write retry with one error line naming the cause, the
 * fix and the command that resumes it, and a non-zero exit: not round after round of retries. Needs npm run build.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOUR } from '../../src/time.js';
import { backfillArgs, runCli } from '../helpers/cli.js';
import { FAST_QUOTAS, onlyJobs, writeSimConfig } from '../helpers/collector.js';
import { useSimulator } from '../helpers/sim.js';

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
    const { code, stderr } = await runCli(backfillArgs(config, to - 24 * HOUR, to), {}, { fileSizeLimit: true }).exited;
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
