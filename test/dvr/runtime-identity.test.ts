import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import type { Simulator } from '../../src/sim/server.js';
import { DVR_RECORDINGS_FILE } from '../../src/state/dvr-recordings.js';
import { configFor, runtimeFor } from '../helpers/collector.js';
import { T0_MS } from './helpers.js';
import { simInProcess } from '../helpers/in-process.js';

/** `series time → starts_at` of the cdn_dvr_range lines written at snapshot `seenAt`. */
function rangesSeenAt(path: string, seenAt: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.startsWith('cdn_dvr_range,') || !line.includes(`seen_at=${seenAt}i`)) continue;
    out.set(`${line.split(' ')[0]!} ${line.split(' ').at(-1)!}`, Number(/starts_at=(\d+)i/.exec(line)![1]));
  }
  return out;
}

/** The daemon's wiring: identities live in the configured state dir and survive a restart of the runtime. */
describe('DVR recording identities through the runtime', () => {
  const clock = new ManualClock(T0_MS);
  let sim: Simulator;
  beforeAll(async () => {
    sim = simInProcess({ clock, quotas: NO_QUOTAS });
  });
  afterAll(() => sim.close());

  it('a restarted runtime keeps the time of a recording whose start the window cut meanwhile', async () => {
    const jobs = {
      metrics: { enabled: false },
      statistic: { enabled: false },
      streamstat: { enabled: false },
      dvr: { streams: sim.streams },
    };
    const dir = mkdtempSync(join(tmpdir(), 'dvr-rt-'));
    const out = join(dir, 'points.lp');
    const config = configFor(sim, { type: 'file', path: out }, { jobs, state: { dir: join(dir, 'state') } });
    const tickOnce = async () => {
      const rt = await runtimeFor(config, clock);
      try {
        await rt.collector.tick();
      } finally {
        await rt.close();
      }
    };
    await tickOnce();
    expect(existsSync(join(config.state.dir, DVR_RECORDINGS_FILE))).toBe(true);
    const before = rangesSeenAt(out, T0_MS / 1000);
    clock.advance(3 * 3600_000);
    await tickOnce();
    const after = rangesSeenAt(out, T0_MS / 1000 + 3 * 3600);
    // Recordings the 4 h window cut meanwhile kept their time; any other row is a new recording, at its start.
    const kept = [...after].filter(([key, start]) => before.has(key) && start > before.get(key)!);
    expect(kept.length).toBeGreaterThan(0);
    const moved = [...after].filter(
      ([key, start]) => !before.has(key) && Number(BigInt(key.split(' ')[1]!) / 1_000_000_000n) !== start,
    );
    expect(moved).toEqual([]);
  });
});
