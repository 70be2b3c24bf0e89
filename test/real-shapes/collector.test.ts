import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import type { Simulator } from '../../src/sim/server.js';
import { HOUR } from '../../src/time.js';
import { configFor, runtimeFor } from '../helpers/collector.js';
import { simInProcess, simFetch } from '../helpers/in-process.js';

/**
 * The collector against the simulator in real shapes (`shapes: 'real'`, CLI `sim --real-shapes`): a pass over every
 * API writes exactly the points the same world gives in seed shapes (DVR apart: its node ids are hex there).
 */
describe('collecting from a simulator that answers in the real shapes', () => {
  const clock = new ManualClock(Math.floor(Date.now() / HOUR) * HOUR - 24 * HOUR);
  const sims: Simulator[] = [];
  afterAll(() => Promise.all(sims.map((s) => s.close())));

  /** The lines one collector pass writes against a simulator with `shapes`. */
  async function linesOf(shapes: 'seed' | 'real'): Promise<string[]> {
    const sim = simInProcess({ clock, quotas: NO_QUOTAS, settings: { shapes } });
    sims.push(sim);
    const out = join(mkdtempSync(join(tmpdir(), `shapes-${shapes}-`)), 'points.lp');
    const rt = await runtimeFor(configFor(sim, { type: 'file', path: out }), clock);
    try {
      const results = await rt.collector.tick();
      expect(results.filter((r) => r.error)).toEqual([]);
    } finally {
      await rt.close();
    }
    return readFileSync(out, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .sort();
  }

  it('the simulator in real shapes answers with text echoes, zone-less times and a numeric status', async () => {
    const sim = simInProcess({ clock, quotas: NO_QUOTAS, settings: { shapes: 'real' } });
    sims.push(sim);
    const get = async (path: string) =>
      (await (await simFetch(`${sim.url}${path}`, { headers: { 'cdn-auth-token': sim.token } })).json()) as Record<
        string,
        unknown
      >;
    const window = 'start=2026-01-01T10:00:00&end=2026-01-01T10:05:00';
    const total = await get(`/app/statistic/v3/?${window}&code=200`);
    expect(total).toMatchObject({ code: '200', start: '2026-01-01T10:00:00', end: '2026-01-01T10:05:00' });
    expect(total.request_id).toEqual(expect.any(String));
    const views = await get(`/app/streamstat/v2/streams?${window}&fields=views,users&limit=1000`);
    expect(views).toMatchObject({ fields: 'views,users', limit: '1000', start: '2026-01-01T10:00:00' });
    const metrics = await get(`/app/metrics/v1/?${window}&account=${sim.accounts[0]}`);
    expect(metrics.status).toBe(200);
  });

  it('writes the same points as in seed shapes; DVR hosts are the hex ids', async () => {
    const seed = await linesOf('seed');
    const real = await linesOf('real');
    const apart = (lines: string[]) => lines.filter((l) => !l.startsWith('cdn_dvr'));
    for (const m of ['cdn_metrics,', 'cdn_metrics_resource,', 'cdn_traffic,', 'cdn_views,']) {
      expect(
        apart(real).some((l) => l.startsWith(m)),
        m,
      ).toBe(true);
    }
    expect(apart(real)).toEqual(apart(seed));
    const hosts = new Set(real.filter((l) => l.startsWith('cdn_dvr,')).map((l) => /,host=([^, ]+)/.exec(l)?.[1]));
    expect(hosts.size).toBeGreaterThan(0);
    for (const host of hosts) expect(host).toMatch(/^[0-9a-f]{24}$/);
  });
});
