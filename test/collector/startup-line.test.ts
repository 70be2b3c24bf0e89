/**
 * The daemon's start-up pass says what it did: "gaps filled" only when they are; otherwise how many windows it
 * collected and how many are left (every span failed; a stop in the middle of the gap fill).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock, systemClock, type Clock } from '../../src/clock.js';
import { startDaemon } from '../../src/app/daemon.js';
import { parseConfig } from '../../src/config/loader.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { onlyJobs, type LogLine } from '../helpers/collector.js';
import { useSimInProcess, runtimeInProcess } from '../helpers/in-process.js';

const simulator = useSimInProcess();

/** A daemon of acme's metrics in 1-minute windows `lookback` back, its log captured. */
async function daemonOf(
  token: string,
  lookback: string,
  quota = { calls: 1000, period: '1m' },
  clock: Clock = systemClock,
) {
  const { sim } = simulator;
  const dir = mkdtempSync(join(tmpdir(), 'startup-line-'));
  const config = parseConfig(
    {
      api: { baseUrl: sim.url, token, timeout: '5s' },
      accounts: ['acme'],
      quotas: { metrics: quota },
      jobs: onlyJobs({ metrics: { window: '1m', delay: '1s', byResource: false, schedule: '0 0 1 1 *' } }),
      sink: { type: 'file', path: join(dir, 'out.lp') },
      state: { dir: join(dir, 'state'), initialLookback: lookback },
    },
    {},
  );
  const { log, text } = capturedLogger();
  const rt = await runtimeInProcess(config, clock, log);
  const daemon = startDaemon(rt, log);
  const startupLine = () =>
    text()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as LogLine)
      .find((l) => String(l.event).startsWith('startup_pass_'));
  return { rt, daemon, startupLine };
}

describe('the start-up pass line', () => {
  it('every gap collected: "done", nothing left', async () => {
    const d = await daemonOf(simulator.sim.token, '5m');
    await d.daemon.firstPass;
    expect(d.startupLine()).toMatchObject({ event: 'startup_pass_done', left: 0 });
    expect(d.startupLine()!.collected).toBeGreaterThanOrEqual(4);
    await d.daemon.stop();
    await d.rt.close();
  });

  it('a window that falls due while the pass runs is the next pass\'s: still "done", nothing left', async () => {
    const clock = new ManualClock(Math.floor(Date.now() / 60_000) * 60_000 - 30_000);
    // A gap of a few windows: one turn of the pass (a longer one plans again at each turn and takes new windows too).
    const d = await daemonOf(simulator.sim.token, '2m', undefined, clock);
    // Two minutes pass during the first call: two more windows are due by the time the pass ends.
    const unsubscribe = d.rt.onLimiterEvent((e) => {
      if (e.type !== 'call') return;
      unsubscribe();
      clock.advance(120_000);
    });
    await d.daemon.firstPass;
    expect(d.startupLine()).toMatchObject({ event: 'startup_pass_done', left: 0 });
    await d.daemon.stop();
    await d.rt.close();
  });

  it('every span failed (a token refused): not "filled", the windows missing and the jobs that failed', async () => {
    const d = await daemonOf('not-the-token', '5m');
    await d.daemon.firstPass;
    const line = d.startupLine()!;
    expect(line.event).toBe('startup_pass_gaps');
    expect(line).toMatchObject({ level: 40, collected: 0, failed: ['metrics/acme'] });
    expect(line.left).toBeGreaterThanOrEqual(4);
    await d.daemon.stop();
    await d.rt.close();
  });

  it('stopped in the middle of the gap fill: "stopped", what it collected and what is left', async () => {
    // One call every 200 ms: a 3-hour gap takes minutes, so the stop comes in the middle of it.
    const d = await daemonOf(simulator.sim.token, '3h', { calls: 1, period: '200ms' });
    await new Promise<void>((resolve) => {
      const unsubscribe = d.rt.onLimiterEvent((e) => {
        if (e.type !== 'call') return;
        unsubscribe();
        resolve();
      });
    });
    await d.daemon.stop();
    await d.daemon.firstPass;
    const line = d.startupLine()!;
    expect(line).toMatchObject({ event: 'startup_pass_stopped', stopped: true });
    expect(line.left).toBeGreaterThan(100);
    await d.rt.close();
  });
});
