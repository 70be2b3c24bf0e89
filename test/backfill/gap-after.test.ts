/**
 * A backfill older than a job's origin moves the origin back to it, and collection leaves no gap after a job's first
 * confirmed span: the windows between the backfilled range and the old origin are collected next. `--dry-run` states
 * that gap and its calls, and the next pass reads exactly it.
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

const MINUTE = 60_000;

describe('backfill before a job’s origin', () => {
  const s = useSimulator({ quotas: FAST_QUOTAS });

  it('--dry-run states the gap collection fills afterwards, and the next pass reads exactly it', async () => {
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
    let rt = await runtimeFor(loadConfigFile(configFile));
    expect((await rt.collector.tick()).filter((r) => r.error)).toEqual([]);
    const origin = rt.store.confirmed(key)[0]!.from;
    await rt.close();

    const to = Math.floor(origin / HOUR) * HOUR - 5 * HOUR;
    const range = ['--from', new Date(to - HOUR).toISOString(), '--to', new Date(to).toISOString()];
    const dry = await runCli(['backfill', '--config', configFile, ...range, '--dry-run', '--json']).exited;
    expect(dry.code, dry.stderr).toBe(0);
    type Gap = { from: string; to: string; spans: number; calls: { metrics: number }; callsMost: { metrics: number } };
    const plan = JSON.parse(dry.stdout) as { calls: { metrics: number }; fillAfter?: Gap };
    expect(plan.calls.metrics).toBe(6);
    const gapSpans = (origin - to) / (10 * MINUTE);
    expect(plan.fillAfter).toEqual({
      from: new Date(to).toISOString(),
      to: new Date(origin).toISOString(),
      spans: gapSpans,
      calls: { metrics: gapSpans },
      callsMost: { metrics: gapSpans },
    });
    const text = await runCli(['backfill', '--config', configFile, ...range, '--dry-run']).exited;
    const [gapFrom, gapTo] = [new Date(to).toISOString(), new Date(origin).toISOString()];
    expect(text.stdout).toContain(`afterwards: collection fills ${gapFrom} → ${gapTo}`);
    expect(text.stdout).toContain(`${gapSpans} spans, calls: metrics ${gapSpans}`);

    const run = await runCli(['backfill', '--config', configFile, ...range]).exited;
    expect(run.code, run.stderr).toBe(0);
    // What the next pass reads before the old origin is the gap the plan stated.
    rt = await runtimeFor(loadConfigFile(configFile));
    try {
      const job = rt.collector.jobs.find((j) => j.key === key)!;
      const before = rt.collector.pending(job).filter((span) => span.to <= origin);
      expect(before.length).toBe(gapSpans);
      expect([before[0]!.from, before.at(-1)!.to]).toEqual([to, origin]);
    } finally {
      await rt.close();
    }
  }, 120_000);
});
