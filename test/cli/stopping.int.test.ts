import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { scaledQuotas } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { backfillArgs, runCli, waitForOutput } from '../helpers/cli.js';
import { writeSimConfig } from '../helpers/collector.js';
import { useTakenPort } from '../helpers/loopback.js';
import { useSimulator } from '../helpers/sim.js';

const MINUTE = 60_000;
/** Metrics alone, one 1-minute window per call: a run has many small spans to stop between. */
const METRICS_ONLY = {
  metrics: { window: '1m', delay: '1s', byResource: false },
  statistic: { enabled: false },
  streamstat: { enabled: false },
  dvr: { enabled: false },
};
const DEBUG_JSON = ['--log-level', 'debug', '--log-format', 'json'];
const lockOf = (dir: string) => join(dir, 'state', 'state.lock');

/**
 * Every command stops the same way on SIGINT, SIGTERM and SIGHUP (src/cli/common/signals.ts): the calls in flight
 * finish and are confirmed, what was collected is checkpointed, the state lock is released, and a command whose work
 * was left says so and exits 128 + the signal's number. Real signals to a real CLI process against the simulator.
 */
/**
 * A simulator of its own (its quota is per token): 5 metrics calls a minute, so after the first few spans every call
 * waits for quota and a stop finds work left.
 */
async function withSlowSim(test: (sim: Simulator) => Promise<void>): Promise<void> {
  const sim = await startSimulator({ quotas: { metrics: { calls: 5, periodMs: MINUTE } } });
  try {
    await test(sim);
  } finally {
    await sim.close();
  }
}

describe('a command stopped by a signal', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    'run --once stops like the daemon on %s: verdict, checkpoints, lock released, exit %i',
    (signal, code) =>
      withSlowSim(async (sim) => {
        const dir = mkdtempSync(join(tmpdir(), 'stop-once-'));
        const config = writeSimConfig(dir, sim, {
          jobs: METRICS_ONLY,
          state: { dir: join(dir, 'state'), initialLookback: '1h' },
        });
        const run = runCli(['run', '--once', '--config', config, ...DEBUG_JSON], {}, { killAfterMs: 60_000 });
        await waitForOutput(run, 'stderr', /"event":"span_confirmed"/);
        run.child.kill(signal);
        const r = await run.exited;
        expect(r.code, r.stderr).toBe(code);
        const verdict =
          /once: STOPPED by (\w+): (\d+) windows? collected and checkpointed, 0 set aside, (\d+) left/.exec(r.stdout);
        expect(verdict?.[1], r.stdout).toBe(signal);
        expect(Number(verdict?.[2])).toBeGreaterThan(0);
        expect(Number(verdict?.[3])).toBeGreaterThan(0);
        expect(readFileSync(join(dir, 'out.lp'), 'utf8')).toMatch(/^cdn_metrics/m);
        expect(
          readdirSync(join(dir, 'state')).filter((n) => n.startsWith('cp-')),
          'checkpoints saved',
        ).not.toEqual([]);
        expect(existsSync(lockOf(dir)), 'state.lock released').toBe(false);
      }),
    90_000,
  );

  it(
    'backfill on SIGTERM says what it kept and how to resume, releases the lock, exit 143',
    () =>
      withSlowSim(async (sim) => {
        const dir = mkdtempSync(join(tmpdir(), 'stop-backfill-'));
        const config = writeSimConfig(dir, sim, { jobs: METRICS_ONLY });
        const to = Math.floor(Date.now() / MINUTE) * MINUTE - 60 * MINUTE;
        const args = backfillArgs(config, to - 60 * MINUTE, to);
        const run = runCli([...args, ...DEBUG_JSON], {}, { killAfterMs: 60_000 });
        await waitForOutput(run, 'stderr', /"event":"span_confirmed"/);
        run.child.kill('SIGTERM');
        const r = await run.exited;
        expect(r.code, r.stderr).toBe(143);
        expect(r.stderr).toMatch(/backfill cancelled: [1-9]\d*\/60 spans/);
        expect(r.stderr).toContain('backfill stopped by SIGTERM: the spans collected are checkpointed; ');
        expect(r.stderr).toContain(`resume with: cdn-collector ${args.join(' ')}`);
        expect(existsSync(lockOf(dir)), 'state.lock released').toBe(false);
      }),
    90_000,
  );
});

describe('the daemon', () => {
  const s = useSimulator({ quotas: scaledQuotas(1000) });

  const startDaemon = async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stop-daemon-'));
    const config = writeSimConfig(dir, s.sim, { jobs: METRICS_ONLY });
    const run = runCli(['run', '--config', config, '--log-format', 'json'], {}, { killAfterMs: 60_000 });
    await waitForOutput(run, 'stderr', /"event":"collector_started"/);
    // Its first report for `status` (written every second): `status` would call it running.
    await vi.waitFor(() => expect(existsSync(join(dir, 'state', 'daemon-status.json'))).toBe(true), {
      timeout: 10_000,
      interval: 50,
    });
    return { dir, config, run };
  };
  const statusOf = async (config: string) => (await runCli(['status', '--config', config]).exited).stdout;

  it('logs and ignores SIGHUP, then stops on SIGTERM: exit 0, lock released', async () => {
    const { dir, run } = await startDaemon();
    const ignored = waitForOutput(run, 'stderr', /SIGHUP ignored: the configuration is read at start only/);
    run.child.kill('SIGHUP');
    await ignored;
    run.child.kill('SIGTERM');
    const r = await run.exited;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/"event":"stopped"/);
    expect(existsSync(lockOf(dir)), 'state.lock released').toBe(false);
  }, 90_000);

  it('status says "not running" at once after a clean stop', async () => {
    const { config, run } = await startDaemon();
    expect(await statusOf(config)).toMatch(/^daemon: running \(pid \d+/m);
    run.child.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    expect(await statusOf(config)).toMatch(/^daemon: not running \(stopped \d{4}-\d\d-\d\dT[\d:.]+Z; /m);
  }, 90_000);

  it('status says "not running" at once after kill -9: its pid is gone', async () => {
    const { config, run } = await startDaemon();
    run.child.kill('SIGKILL');
    expect((await run.exited).signal).toBe('SIGKILL');
    expect(await statusOf(config)).toMatch(/^daemon: not running \(lag from the watermarks/m);
  }, 90_000);

  describe('with its listener port taken', () => {
    const taken = useTakenPort();

    it('says so in one line naming the settings, exit 1, nothing left locked', async () => {
      const { port } = taken;
      const dir = mkdtempSync(join(tmpdir(), 'stop-port-'));
      const config = writeSimConfig(dir, s.sim, { jobs: METRICS_ONLY });
      const r = await runCli(['run', '--config', config, '--listen', `127.0.0.1:${port}`, '--log-level', 'error'])
        .exited;
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toBe(
        `error: http.port ${port} (--listen, CDN_LISTEN, or the config file): ` +
          `address 127.0.0.1:${port} is already in use\n`,
      );
      expect(existsSync(lockOf(dir))).toBe(false);
    }, 60_000);
  });

  describe('output into a closed pipe (`… | head -1`) ends quietly, exit 0', () => {
    const closedStdout = (args: string[]) => {
      const run = runCli(args, {}, { killAfterMs: 60_000 });
      run.child.stdout!.destroy(); // the reader is gone before the command writes
      return run.exited;
    };

    it.each([[['schema', '--json']], [['run', '--help']]])('%j', async (args) => {
      const r = await closedStdout(args);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    });

    it('run --once --dry-run, releasing the state lock', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'stop-pipe-'));
      const config = writeSimConfig(dir, s.sim, { jobs: METRICS_ONLY });
      const r = await closedStdout(['run', '--once', '--dry-run', '--config', config, '--log-level', 'error']);
      expect(r.stderr).not.toMatch(/EPIPE|Error|\n\s+at /);
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(lockOf(dir))).toBe(false);
    }, 60_000);
  });
});

describe('the documented exit of a stopped command', () => {
  it('backfill --help and the README say what a stop exits with, not 0', async () => {
    const help = (await runCli(['backfill', '--help']).exited).stdout;
    expect(help).not.toMatch(/^ {2}0 {2}.*Ctrl-C/m);
    expect(help).toMatch(/130 {2}stopped by Ctrl-C \(143: SIGTERM, 129: SIGHUP\)/);
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8').replace(/\s+/g, ' ');
    expect(readme.includes('Ctrl-C and SIGTERM stop gracefully and exit 0'), 'README: exit 0 after Ctrl-C').toBe(false);
    expect(readme.includes('A command whose work was left exits 130 (143 for SIGTERM, 129 for SIGHUP)'), 'README').toBe(
      true,
    );
    const backfill = readme.slice(readme.indexOf('### Backfill'), readme.indexOf('### Verify'));
    expect(backfill.includes('exits 130 (143 for SIGTERM, 129 for SIGHUP)'), 'README Backfill').toBe(true);
  });
});
