/**
 * Ctrl-C of a backfill handed to a daemon that is catching up: the daemon's live calls go first, so the backfill's
 * calls wait in the limiter's queue for as long as the catch-up lasts (minutes at the real quotas). The cancel must
 * drop them and end the backfill at once — while the catch-up still runs — and the command must say what happened.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/app/daemon.js';
import type { Runtime } from '../../src/app/runtime.js';
import { SAME_KEYPRESS_MS } from '../../src/cli/common/signals.js';
import { loadConfigFile } from '../../src/config/loader.js';
import { CheckpointStore } from '../../src/state/checkpoints.js';
import { createLogger } from '../../src/log.js';
import { HOUR } from '../../src/time.js';
import { onlyJobs, runtimeFor, writeSimConfig } from '../helpers/collector.js';
import { runCli, waitForOutput } from '../helpers/cli.js';
import { useSimulator } from '../helpers/sim.js';
import { ensureBuilt, waitFor } from '../ops/entry.js';

/** One metrics call a second, on the simulator and in the config: a 6-hour catch-up of 1-minute windows takes 6 min. */
const QUOTA = { calls: 1, periodMs: 1_000 };

describe('Ctrl-C of a backfill handed to a daemon that is catching up', () => {
  const s = useSimulator({ quotas: { metrics: QUOTA } });
  let rt: Runtime | undefined;
  let daemon: Daemon | undefined;
  afterAll(async () => {
    await daemon?.stop();
    await rt?.close();
  });

  it('drops its queued calls, ends cancelled while the catch-up runs; the command says so, exit 130', async () => {
    ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'cancel-catching-up-'));
    const [behind, current] = s.sim.accounts as [string, string];
    const configFile = writeSimConfig(dir, s.sim, {
      accounts: [behind, current],
      quotas: { metrics: { calls: QUOTA.calls, period: '1s' } },
      jobs: onlyJobs({ metrics: { window: '1m', delay: '1s', byResource: false, schedule: '*/2 * * * * *' } }),
      output: { deadLetterPath: join(dir, 'dead-letters.jsonl') },
      state: { dir: join(dir, 'state'), initialLookback: '6h' },
      log: { level: 'warn' },
    });
    rt = await runtimeFor(loadConfigFile(configFile));
    // One account is caught up (the daemon's origin at its newest window, confirmed), the other starts 6 hours back:
    // its live calls fill the quota for minutes, and every backfill call of the first waits behind them.
    const job = rt.collector.jobs.find((j) => j.key === `metrics/${current}`)!;
    const newest = rt.collector.pending(job).at(-1)!;
    await rt.store.setOrigin(job.key, newest.from);
    await rt.store.confirm(job.key, newest);
    daemon = startDaemon(rt, createLogger('warn', { pretty: false }));
    let caughtUp = false;
    void daemon.firstPass.then(() => (caughtUp = true));

    const to = Math.floor(newest.from / HOUR) * HOUR - HOUR;
    const args = ['--from', new Date(to - HOUR).toISOString(), '--to', new Date(to).toISOString(), '--jobs', job.key];
    const run = runCli(['backfill', '--config', configFile, ...args]);
    await waitForOutput(run, 'stderr', /handing the backfill to it/);
    const metrics = rt.limiters.get('metrics');
    const queued = async () => (metrics.snapshot().queuedBackfill > 0 ? true : undefined);
    await waitFor('backfill calls queued behind the catch-up', queued, 30_000);

    run.child.kill('SIGINT');
    const exit = await run.exited;
    expect(exit.code, exit.stderr).toBe(130);
    // The command said what happened: the cancel asked, the daemon's answer, and how to resume.
    expect(exit.stderr).toMatch(/asking the daemon to cancel the backfill/);
    expect(exit.stderr).toMatch(/backfill cancelled: \d+\/60 spans/);
    const resume = /backfill stopped by SIGINT: .*resume with: cdn-collector backfill --config \S+ --from /;
    expect(exit.stderr).toMatch(resume);
    // Its calls left the limiter's queue, and that happened while the catch-up's live calls were still queued.
    expect(metrics.snapshot().queuedBackfill).toBe(0);
    expect(caughtUp, 'the backfill ended only after the catch-up').toBe(false);
    expect(metrics.snapshot().queued).toBeGreaterThan(0);
  }, 90_000);

  it('a second Ctrl-C quits at once and says what it leaves undone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cancel-quit-'));
    const configFile = writeSimConfig(dir, s.sim, { accounts: [s.sim.accounts[0]], jobs: onlyJobs({ metrics: {} }) });
    // The state lock held by a process that takes no request: the command waits for an answer that never comes.
    const holder = await CheckpointStore.open(join(dir, 'state'));
    try {
      const to = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
      const range = ['--from', new Date(to - HOUR).toISOString(), '--to', new Date(to).toISOString()];
      const run = runCli(['backfill', '--config', configFile, ...range]);
      await waitForOutput(run, 'stderr', /handing the backfill to it/);
      run.child.kill('SIGINT');
      const requests = join(dir, 'state', 'backfill');
      const cancelFile = async () => (readdirSync(requests).some((n) => n.endsWith('.cancel')) ? true : undefined);
      await waitFor('the cancel request', cancelFile, 10_000);
      // A second signal within SAME_KEYPRESS_MS of the first is the same keypress (npx delivers it twice).
      const firstAt = Date.now();
      const later = async () => (Date.now() - firstAt > SAME_KEYPRESS_MS ? true : undefined);
      await waitFor('a later keypress', later, 5_000);
      run.child.kill('SIGINT');
      const exit = await run.exited;
      expect(exit.code, exit.stderr).toBe(130);
      const said = /quitting now \(SIGINT\): the daemon was asked to cancel the backfill .*Resume with:\n {2}cdn-/;
      expect(exit.stderr).toMatch(said);
    } finally {
      await holder.close();
    }
  }, 60_000);
});
