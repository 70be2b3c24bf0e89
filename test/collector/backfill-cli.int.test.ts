import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DAY, HOUR } from '../../src/time.js';
import { backfillArgs, runCli } from '../helpers/cli.js';
import { useSimulator } from '../helpers/sim.js';
import { writeSimConfig } from '../helpers/collector.js';

describe('cdn-collector backfill (CLI)', () => {
  const s = useSimulator();
  const dir = mkdtempSync(join(tmpdir(), 'bfcli-'));
  const to = Math.floor((Date.now() - 2 * HOUR) / DAY) * DAY;
  const from = to - 2 * DAY;
  const config = () => writeSimConfig(dir, s.sim);

  it('--dry-run prints the plan (calls per API, minimum duration under the quotas) and calls nothing', async () => {
    const before = s.sim.stats.apis.statistic.requests + s.sim.stats.apis.metrics.requests;
    const r = await runCli(backfillArgs(config(), from, to, '--dry-run', '--json')).exited;
    expect(r.code, r.stderr).toBe(0);
    type Calls = Record<string, number>;
    type Plan = { calls: Calls; callsMost: Calls; pagingMayAdd: string[]; minimumDurationSec: number; jobs: unknown[] };
    const plan = JSON.parse(r.stdout) as Plan;
    // Metrics: 2 days of 10-minute windows, aggregate + by resource. Statistics: one call per grouping (4) for both
    // days (576 buckets are one page of /times, and a grouped read spans up to 31 days), and with nothing learnt yet
    // of the server's pages, at most the page that checks each grouped read's short page was not capped (3).
    expect(plan.calls.metrics).toBe(2 * 288);
    expect(plan.callsMost.metrics).toBe(2 * 288);
    expect([plan.calls.statistic, plan.callsMost.statistic]).toEqual([4, 4 + 3]);
    // Grouped reads are paged by rows not known in advance; metrics reads are one call each.
    expect(plan.pagingMayAdd).toContain('statistic');
    expect(plan.pagingMayAdd).not.toContain('metrics');
    // 576 metrics calls at 120 per minute need at least four full periods.
    expect(plan.minimumDurationSec).toBeGreaterThanOrEqual(60);
    expect(s.sim.stats.apis.statistic.requests + s.sim.stats.apis.metrics.requests).toBe(before);
    expect(readdirSync(join(dir, 'state')).filter((f) => f.startsWith('cp-'))).toEqual([]);
  });

  /** The keys of the jobs a dry run from `start` to `to` plans, and its notes. */
  async function dryRun(start: number, ...args: string[]): Promise<{ keys: string[]; notes: string[] }> {
    const range = ['--from', new Date(start).toISOString(), '--to', new Date(to).toISOString()];
    const r = await runCli(['backfill', '--config', config(), ...range, ...args, '--dry-run', '--json']).exited;
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as { jobs: Array<{ key: string }>; notes: string[] };
    return { keys: plan.jobs.map((j) => j.key), notes: plan.notes };
  }

  it('--jobs selects the jobs whose key starts with the text', async () => {
    expect((await dryRun(from, '--jobs', 'metrics')).keys).toEqual(['metrics/acme', 'metrics_resource/acme']);
    expect((await dryRun(from, '--jobs', 'metrics/')).keys).toEqual(['metrics/acme']);
    const statistic = (await dryRun(from, '--jobs', 'stat')).keys;
    expect(statistic.length).toBeGreaterThan(0);
    expect(statistic.filter((key) => !key.startsWith('statistic/'))).toEqual([]);
  });

  it('--jobs that selects nothing exits 2 listing the keys there are', async () => {
    const r = await runCli(['backfill', '--config', config(), '--from', '2026-01-01', '--jobs', 'nope']).exited;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /--jobs nope: no job key starts with it; the keys are: .*metrics\/acme, metrics_resource\/acme/,
    );
  });

  it('prints the notes of the selected jobs only', async () => {
    // Five minutes into a 10-minute metrics window, on a bound of the 5-minute statistic buckets.
    const inside = from + 5 * 60_000;
    expect((await dryRun(inside)).notes.join('\n')).toMatch(/window of metrics/);
    expect((await dryRun(inside, '--jobs', 'stat')).notes).toEqual([]);
  });

  it.each([
    [['--from', 'Nov 23'], /--from/],
    [['--from', '2026-01-02', '--to', '2026-01-01'], /--from must be before --to/],
    [['--from', '2026-01-01', '--jobs', 'nope'], /--jobs/],
  ])('bad arguments exit 2 naming them (%#)', async (args, message) => {
    const r = await runCli(['backfill', '--config', config(), ...args]).exited;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});
