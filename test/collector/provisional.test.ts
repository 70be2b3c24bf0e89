import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import type { Simulator } from '../../src/sim/server.js';
import { HOUR, MINUTE } from '../../src/time.js';
import { configFor, runtimeFor } from '../helpers/collector.js';
import { simInProcess, simClient } from '../helpers/in-process.js';

/** Hits of `cdn_traffic` total points for acme in a line-protocol file: the last value written per time wins. */
function hitsByTime(path: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.startsWith('cdn_traffic,account=acme,')) continue;
    const hits = Number(/hits=(\d+)i/.exec(line)![1]);
    out.set(Number(BigInt(line.split(' ').at(-1)!) / 1_000_000n), hits);
  }
  return out;
}

/**
 * Statistics of the last hour are still growing. The checkpointed job reads a bucket only once final; with
 * `provisional`, a second job reads closed buckets early, and the final read overwrites them with the full value.
 */
describe('provisional statistics', () => {
  const clock = new ManualClock(Math.floor(Date.now() / HOUR) * HOUR - 24 * HOUR);
  let sim: Simulator;
  beforeAll(async () => {
    sim = simInProcess({ clock, quotas: NO_QUOTAS });
  });
  afterAll(() => sim.close());

  it('reads growing buckets early and ends with the final values', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'prov-')), 'points.lp');
    const config = configFor(
      sim,
      { type: 'file', path: out },
      {
        accounts: ['acme'],
        jobs: {
          metrics: { enabled: false },
          streamstat: { enabled: false },
          dvr: { enabled: false },
          statistic: { groupings: ['total'], provisional: true },
        },
      },
    );
    const rt = await runtimeFor(config, clock);
    await rt.collector.tick();
    const early = hitsByTime(out);
    const recent = clock.now() - 30 * MINUTE; // a bucket 30 minutes old: half of its lag has passed
    expect(early.has(recent)).toBe(true);
    const provisional = early.get(recent)!;

    clock.advance(HOUR + 10 * MINUTE);
    await rt.collector.tick();
    const final = hitsByTime(out).get(recent)!;
    expect(final).toBeGreaterThan(provisional);
    const { StatisticClient } = await import('../../src/sources/statistic/client.js');
    const truth = await new StatisticClient(simClient(sim, { token: sim.token })).total({
      account: 'acme',
      start: recent,
      end: recent + 5 * MINUTE,
    });
    expect(final).toBe(truth.body.hits);
    // The provisional job keeps no checkpoint; the final one covers the bucket now.
    expect(rt.store.confirmed('statistic-provisional/acme/total')).toEqual([]);
    expect(rt.store.missing('statistic/acme/total', recent, recent + 5 * MINUTE)).toEqual([]);
    await rt.close();
  });
});
