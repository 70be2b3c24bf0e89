/**
 * The plan `backfill --dry-run` prints is what the run then makes: per API, either the exact calls or a range
 * [least, most] the run lands in. On a fresh state directory nothing is known of the server's pages yet, so the
 * grouped reads are the uncertain ones (the page that checks a short page was not capped is paid only while that page
 * is as large as any the API served); the simulator's own request count per API is the judge.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_NAMES, type ApiName } from '../../src/spec/apis.js';
import { DAY, HOUR } from '../../src/time.js';
import { FAST_QUOTAS, writeSimConfig } from '../helpers/collector.js';
import { runCli } from '../helpers/cli.js';
import { useSimulator } from '../helpers/sim.js';

type Calls = Partial<Record<ApiName, number>>;

describe('backfill --dry-run: the calls the run makes', () => {
  const s = useSimulator({ quotas: FAST_QUOTAS });

  it('on a fresh state dir, each API lands on the printed figure or inside the printed range', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plan-calls-'));
    const groupings = { statistic: { groupings: ['total', 'countries', 'regions', 'resources'], span: '6h' } };
    const config = writeSimConfig(dir, s.sim, {
      jobs: {
        dvr: { enabled: false },
        ...groupings,
        streamstat: { groupings: ['total', 'streams', 'browsers'], uniques: ['PT1H'], span: '6h' },
      },
    });
    const to = Math.floor((Date.now() - 3 * HOUR) / DAY) * DAY;
    const range = ['--from', new Date(to - 2 * DAY).toISOString(), '--to', new Date(to).toISOString()];

    const dry = await runCli(['backfill', '--config', config, ...range, '--dry-run', '--json']).exited;
    expect(dry.code, dry.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout) as { calls: Calls; callsMost: Calls };
    const text = await runCli(['backfill', '--config', config, ...range, '--dry-run']).exited;
    expect(text.stdout).not.toMatch(/calls at least/);

    const before = Object.fromEntries(API_NAMES.map((api) => [api, s.sim.stats.apis[api].requests]));
    const run = await runCli(['backfill', '--config', config, ...range]).exited;
    expect(run.code, run.stderr).toBe(0);
    for (const api of ['metrics', 'statistic', 'streamstat'] as const) {
      const made = s.sim.stats.apis[api].requests - before[api]!;
      const [least, most] = [plan.calls[api], plan.callsMost[api]];
      // The text says the same: the figure, or the range.
      const printed = least === most ? `${api}: ${least} calls` : `${api}: ${least}–${most} calls`;
      expect(text.stdout).toContain(printed);
      expect(made, `${api}: ${made} made, plan [${least}, ${most}]`).toBeGreaterThanOrEqual(least!);
      expect(made, `${api}: ${made} made, plan [${least}, ${most}]`).toBeLessThanOrEqual(most!);
    }
  }, 120_000);
});
