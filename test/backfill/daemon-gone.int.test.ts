/**
 * A backfill handed to the daemon, then the daemon killed with -9: no status says so, and the command used to follow
 * the request forever. It asks the state lock whether the daemon lives, says it is gone, withdraws its request and
 * exits non-zero with the command that resumes the rest.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handOverBackfill } from '../../src/backfill/client.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { backfillArgs, runCli, waitForOutput } from '../helpers/cli.js';
import { onlyJobs, writeSimConfig } from '../helpers/collector.js';

const MINUTE = 60_000;

describe('a backfill handed to a daemon that dies', () => {
  let sim: Simulator;
  beforeAll(async () => {
    // 5 metrics calls a minute: a 60-span backfill is still running when the daemon is killed.
    sim = await startSimulator({ quotas: { metrics: { calls: 5, periodMs: MINUTE } } });
  });
  afterAll(() => sim.close());

  it('the command says the daemon is gone and exits 1 with the resume command; its request is withdrawn', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'daemon-gone-'));
    const config = writeSimConfig(dir, sim, {
      jobs: onlyJobs({ metrics: { window: '1m', delay: '1s', byResource: false } }),
      state: { dir: join(dir, 'state'), initialLookback: '5m' },
    });
    const daemon = runCli(['run', '--config', config, '--log-format', 'json'], {}, { killAfterMs: 80_000 });
    await waitForOutput(daemon, 'stderr', /"event":"collector_started"/);
    await vi.waitFor(() => expect(existsSync(join(dir, 'state', 'daemon-status.json'))).toBe(true), {
      timeout: 20_000,
      interval: 50,
    });
    const to = Math.floor(Date.now() / MINUTE) * MINUTE - 60 * MINUTE;
    const args = backfillArgs(config, to - 60 * MINUTE, to);
    const backfill = runCli(args, {}, { killAfterMs: 80_000 });
    await waitForOutput(daemon, 'stderr', /"event":"backfill_handed_over"/);
    daemon.child.kill('SIGKILL');
    await daemon.exited;
    const r = await backfill.exited;
    expect(r.signal, 'ended by itself, not killed by the test').toBeNull();
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/the daemon \(pid \d+\) holding \S+ is gone after \d+ spans of the backfill/);
    expect(r.stderr).toContain(`resume with: cdn-collector ${args.join(' ')}`);
    const left = readdirSync(join(dir, 'state', 'backfill')).filter((n) => n.endsWith('.request.json'));
    expect(left, 'request withdrawn: a restarted daemon does not run it behind the command').toEqual([]);
  }, 90_000);
});

describe('the hand-over client', () => {
  it('gives up at once when no live process holds the state directory, the request withdrawn', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'daemon-none-'));
    const handed = handOverBackfill(
      dir,
      { from: 0, to: MINUTE, jobs: [], dryRun: false },
      { holder: async () => undefined, pollMs: 10, pickupTimeoutMs: 3_600_000 },
    );
    await expect(handed).rejects.toMatchObject({ code: 'CDN_ERR_DAEMON_GONE' });
    expect(readdirSync(join(dir, 'backfill'))).toEqual([]);
  });
});
