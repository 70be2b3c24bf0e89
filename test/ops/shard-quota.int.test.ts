import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyShard } from '../../src/cli/common/apply-shard.js';
import type { Runtime } from '../../src/app/runtime.js';
import { stopCollecting } from '../../src/app/stop.js';
import { ConfigError, parseConfig } from '../../src/config/loader.js';
import { configQuotasOf, NO_QUOTAS } from '../../src/sim/quota.js';
import { startSimulator } from '../../src/sim/server.js';
import { API_NAMES } from '../../src/spec/apis.js';
import { onlyJobs, runtimeFor } from '../helpers/collector.js';

const LOGIN = { username: 'shards@example', password: 'shared-login-password-3' };
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function configOf(api: Record<string, unknown>, shardQuota?: string) {
  return parseConfig(
    {
      api: { baseUrl: 'http://127.0.0.1:9', ...api, ...(shardQuota ? { shardQuota } : {}) },
      accounts: ['acme', 'globex', 'initech', 'umbrella', 'hooli'],
      sink: { type: 'file', path: '-' },
    },
    {},
  );
}

const callsOf = (config: ReturnType<typeof configOf>) => API_NAMES.map((api) => config.quotas[api].calls);

/**
 * Shards that log in as one user spend one quota: the service counts the user's calls together, while each shard's
 * limiter sees only its own. Each shard keeps floor(calls / n) of every quota, so that together they stay within it.
 */
describe('the quota of shards that share a login', () => {
  const login = { username: LOGIN.username, password: LOGIN.password };
  const whole = callsOf(configOf({ token: 't' }));

  it('is divided among the shards of a login, and left whole for shards with a token each', () => {
    expect(whole).toEqual([120, 5, 30, 60]); // metrics, statistic, streamstat, dvr
    expect(callsOf(applyShard(configOf(login), { index: 0, count: 2 }))).toEqual([60, 2, 15, 30]);
    expect(callsOf(applyShard(configOf(login), { index: 1, count: 3 }))).toEqual([40, 1, 10, 20]);
    expect(callsOf(applyShard(configOf({ token: 't' }), { index: 0, count: 2 }))).toEqual(whole);
    expect(callsOf(applyShard(configOf(login), { index: 0, count: 1 }))).toEqual(whole);
  });

  it('follows api.shardQuota where it is set: divided for a shared token, whole for a login per shard', () => {
    expect(callsOf(applyShard(configOf({ token: 't' }, 'divided'), { index: 0, count: 2 }))).toEqual([60, 2, 15, 30]);
    expect(callsOf(applyShard(configOf(login, 'whole'), { index: 0, count: 2 }))).toEqual(whole);
  });

  it('refuses, naming the quota, when a shard would get no call of it', () => {
    const refusal = (() => {
      try {
        applyShard(configOf(login), { index: 0, count: 6 });
      } catch (err) {
        return err;
      }
    })();
    expect(refusal).toBeInstanceOf(ConfigError);
    expect((refusal as ConfigError).field).toBe('quotas.statistic.calls');
    expect(() => configOf(login, 'half')).toThrow(ConfigError);
  });

  it('two shards of one login against a service counting the user calls together: no 429', async () => {
    const quotas = {
      ...NO_QUOTAS,
      statistic: { calls: 4, periodMs: 1000 },
      streamstat: { calls: 4, periodMs: 1000 },
    };
    const sim = await startSimulator({ quotas, world: { accounts: 6 }, login: LOGIN });
    const runtimes: Runtime[] = [];
    try {
      for (const index of [0, 1]) {
        const dir = mkdtempSync(join(tmpdir(), `shard-quota-${index}-`));
        dirs.push(dir);
        const config = parseConfig(
          {
            api: { baseUrl: sim.url, ...login },
            accounts: sim.accounts,
            quotas: configQuotasOf(sim.quota),
            jobs: onlyJobs({
              statistic: { groupings: ['total', 'codes'] },
              streamstat: { groupings: ['total'], uniques: [] },
            }),
            sink: { type: 'file', path: join(dir, 'out.lp') },
            state: { dir: join(dir, 'state'), initialLookback: '3h' },
            log: { level: 'warn' },
          },
          {},
        );
        runtimes.push(await runtimeFor(applyShard(config, { index, count: 2 })));
      }
      const results = (await Promise.all(runtimes.map((rt) => rt.collector.tick()))).flat();
      expect(results.filter((r) => r.error !== undefined)).toEqual([]);
      for (const api of ['statistic', 'streamstat'] as const) {
        // Both shards' calls together were more than one period's quota: they had to share it.
        expect(sim.stats.apis[api].requests, api).toBeGreaterThan(quotas[api].calls);
        expect(sim.stats.apis[api].quotaRejections, api).toBe(0);
      }
    } finally {
      for (const rt of runtimes) {
        await stopCollecting(rt);
        await rt.close();
      }
      await sim.close();
    }
  });
});
