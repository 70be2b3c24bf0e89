import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import type { Simulator } from '../../src/sim/server.js';
import { StatisticClient } from '../../src/sources/statistic/client.js';
import { HOUR } from '../../src/time.js';
import { configFor, runtimeFor } from '../helpers/collector.js';
import { simInProcess, simClient } from '../helpers/in-process.js';

/** Hits of acme's `paths` points in a line-protocol file, summed per host tag. */
function pathHitsByHost(file: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('cdn_traffic_by_paths,account=acme,')) continue;
    const host = /(?<!\\),host=([^, ]+)/.exec(line)?.[1] ?? '(none)';
    out.set(host, (out.get(host) ?? 0) + Number(/ (?:.*,)?hits=(\d+)i/.exec(line)![1]));
  }
  return out;
}

/** The `paths` grouping needs a host (spec A2): one job per listed account and host, its points tagged with the host.
 * */
describe('paths grouping', () => {
  const clock = new ManualClock(Math.floor(Date.now() / HOUR) * HOUR - 24 * HOUR);
  let sim: Simulator;
  beforeAll(async () => {
    sim = simInProcess({ clock, quotas: NO_QUOTAS });
  });
  afterAll(() => sim.close());

  it('collects /times/paths per host; the totals per host equal the simulator /paths totals', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'paths-')), 'points.lp');
    const hosts = sim.world.accounts[0]!.resources.slice(0, 2).map((r) => r.cname);
    const config = configFor(
      sim,
      { type: 'file', path: out },
      {
        accounts: ['acme', 'globex'],
        jobs: {
          metrics: { enabled: false },
          streamstat: { enabled: false },
          dvr: { enabled: false },
          statistic: { groupings: ['paths'], paths: { hosts: { acme: hosts } } },
        },
      },
    );
    const rt = await runtimeFor(config, clock);
    // globex lists no host: it has no paths job.
    expect(rt.collector.jobs.map((j) => j.key)).toEqual(hosts.map((h) => `statistic/acme/paths/${h}`));
    const results = await rt.collector.tick();
    expect(results.filter((r) => r.error)).toEqual([]);

    const collected = pathHitsByHost(out);
    expect([...collected.keys()].sort()).toEqual([...hosts].sort());
    const client = new StatisticClient(simClient(sim, { token: sim.token }));
    for (const host of hosts) {
      const spans = rt.store.confirmed(`statistic/acme/paths/${host}`);
      expect(spans).toHaveLength(1);
      let truth = 0;
      for await (const rows of client.pages('paths', {
        account: 'acme',
        host,
        start: spans[0]!.from,
        end: spans[0]!.to,
      })) {
        truth += rows.reduce((n, r) => n + (r.hits ?? 0), 0);
      }
      expect(truth).toBeGreaterThan(0);
      expect(collected.get(host), host).toBe(truth);
    }
    await rt.close();
  });

  it('refuses grouping paths without hosts, naming the field', async () => {
    expect(() =>
      configFor(sim, { type: 'file', path: '/dev/null' }, { jobs: { statistic: { groupings: ['paths'] } } }),
    ).toThrow(/jobs\.statistic\.paths\.hosts/);
  });
});
