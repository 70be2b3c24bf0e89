/**
 * A backfill handed to a daemon whose file sink cannot grow (the daemon runs under a file size limit: writes fail
 * EFBIG as on a full disk) ends as the same backfill run alone does: one error line naming the cause, the fix and
 * the command that resumes it, exit 1. Before, the command only said "incomplete" and left the cause to the daemon's
 * log. Needs npm run build.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HOUR } from '../../src/time.js';
import { backfillArgs, runCli, type ChildRun } from '../helpers/cli.js';
import { FAST_QUOTAS, onlyJobs, writeSimConfig } from '../helpers/collector.js';
import { useSimulator } from '../helpers/sim.js';

describe('a backfill handed to a daemon whose sink cannot grow', () => {
  const s = useSimulator({ quotas: FAST_QUOTAS });
  let daemon: ChildRun | undefined;
  afterAll(async () => {
    daemon?.child.kill('SIGTERM');
    await daemon?.exited;
  });

  it('stops with the cause, the fix and the resume command in one error line, exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sink-full-daemon-'));
    const config = writeSimConfig(dir, s.sim, {
      jobs: onlyJobs({ metrics: { window: '10m', byResource: false } }),
      // A short retry: what is tested is what the command says once the write retry ends the backfill.
      output: { retryFor: '3s', deadLetterPath: join(dir, 'dead-letters.jsonl') },
      state: { dir: join(dir, 'state'), initialLookback: '10m' },
      log: { level: 'warn' },
    });
    daemon = runCli(['run', '--config', config], {}, { fileSizeLimit: true });
    const statusFile = join(dir, 'state', 'daemon-status.json');
    await expect.poll(() => existsSync(statusFile) || daemon?.child.exitCode !== null, { timeout: 30_000 }).toBe(true);
    expect(daemon.child.exitCode).toBeNull();

    const to = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
    const { code, stderr } = await runCli(backfillArgs(config, to - 24 * HOUR, to)).exited;
    expect(stderr).toMatch(/handing the backfill to it/);
    expect(code, stderr).toBe(1);
    const errors = stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^error: backfill stopped: .*cannot write .*out\.lp: .*\(EFBIG\); free space .*sink\.path/,
    );
    expect(errors[0]).toMatch(/resume with: cdn-collector backfill --config .* --from .* --to /);
  }, 120_000);
});
