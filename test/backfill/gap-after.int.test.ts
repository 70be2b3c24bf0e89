/**
 * A backfill of an old hour is the backfill's own range: it never moves the daemon's origin, so the daemon's gap
 * filling afterwards is exactly what it was before (it used to widen to everything between the hour and the origin).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config/loader.js';
import { HOUR } from '../../src/time.js';
import { FAST_QUOTAS, runtimeFor, writeSimConfig } from '../helpers/collector.js';
import { runCli } from '../helpers/cli.js';
import { useSimulator } from '../helpers/sim.js';

describe('backfill before the daemon’s origin', () => {
  const s = useSimulator({ quotas: FAST_QUOTAS });

  it('an old one-hour backfill leaves the daemon’s gap fill unchanged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gap-after-'));
    const configFile = writeSimConfig(dir, s.sim, {
      jobs: {
        metrics: { window: '10m', byResource: false },
        statistic: { enabled: false },
        streamstat: { enabled: false },
        dvr: { enabled: false },
      },
      state: { dir: join(dir, 'state'), initialLookback: '1h' },
    });
    const key = 'metrics/acme';
    // The daemon's first pass: the job's origin is an hour back.
    const rt = await runtimeFor(loadConfigFile(configFile));
    expect((await rt.collector.tick()).filter((r) => r.error)).toEqual([]);
    const origin = rt.store.confirmed(key)[0]!.from;
    await rt.close();

    const to = Math.floor(origin / HOUR) * HOUR - 5 * HOUR;
    const range = ['--from', new Date(to - HOUR).toISOString(), '--to', new Date(to).toISOString()];
    const dry = await runCli(['backfill', '--config', configFile, ...range, '--dry-run', '--json']).exited;
    expect(dry.code, dry.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout) as { calls: { metrics: number }; fillAfter?: unknown };
    expect(plan.calls.metrics).toBe(6);
    expect(plan.fillAfter).toBeUndefined();
    const text = await runCli(['backfill', '--config', configFile, ...range, '--dry-run']).exited;
    expect(text.stdout).not.toContain('afterwards');

    const pendingNow = async (at: number) => {
      const current = await runtimeFor(loadConfigFile(configFile));
      try {
        const job = current.collector.jobs.find((j) => j.key === key)!;
        return { pending: current.collector.pending(job, undefined, at), origin: current.store.origin(key) };
      } finally {
        await current.close();
      }
    };
    // Both reads are made for the same instant: a window falling due between them would differ for no other reason.
    const at = Date.now();
    const before = await pendingNow(at);
    const run = await runCli(['backfill', '--config', configFile, ...range]).exited;
    expect(run.code, run.stderr).toBe(0);
    const after = await pendingNow(at);
    expect(after.origin).toBe(origin);
    expect(after.pending.filter((span) => span.from < origin)).toEqual([]);
    expect(after.pending).toEqual(before.pending);
  }, 120_000);
});
