import { join } from 'node:path';
import type { Simulator } from '../../src/sim/server.js';
import { configFor, runtimeFor } from './collector.js';

/**
 * A runtime that reads one account's statistics by resource alone (the other APIs off) into a file sink under `dir`,
 * with `maxBodyBytes` setting the row budget of one answer: the set-up of the big-account memory tests.
 */
export async function resourcesRuntime(sim: Simulator, dir: string, maxBodyBytes: number) {
  const account = sim.accounts[0]!;
  const config = configFor(
    sim,
    { type: 'file', path: join(dir, 'out.lp') },
    {
      accounts: [account],
      api: { baseUrl: sim.url, token: sim.token, maxBodyBytes },
      jobs: {
        statistic: { groupings: ['resources'] },
        metrics: { enabled: false },
        streamstat: { enabled: false },
        dvr: { enabled: false },
      },
      state: { dir: join(dir, 'state') },
    },
  );
  const rt = await runtimeFor(config);
  const job = rt.collector.jobs.find((j) => j.key === `statistic/${account}/resources`)!;
  return { rt, job };
}
