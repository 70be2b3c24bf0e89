import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDaemon } from '../../src/app/daemon.js';
import { DISCOVERY_CONDITION } from '../../src/collector/discovery.js';
import { applyShard } from '../../src/cli/common/apply-shard.js';
import { shardOf } from '../../src/config/shard.js';
import { createLogger } from '../../src/log.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { HOUR } from '../../src/time.js';
import { configFor, runtimeFor } from '../helpers/collector.js';

const TOKEN = 'discovery-token';

/** Times of the `cdn_traffic` points of each account in a line-protocol file. */
function timesWritten(file: string): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^cdn_traffic,account=([^,]+),.* (\d+)$/.exec(line);
    if (m) out.set(m[1]!, (out.get(m[1]!) ?? new Set()).add(Number(BigInt(m[2]!) / 1_000_000n)));
  }
  return out;
}

/** Accounts that have `cdn_traffic` points in a line-protocol file. */
function accountsWritten(file: string): string[] {
  return [...timesWritten(file).keys()].sort();
}

/**
 * `accounts: auto`: the collector reads the token's active accounts from the inventory endpoint and adds the
 * jobs of new ones while it runs; the totals of all of them are one /times/accounts job that a new account joins.
 * The simulator's token first grants two of its four accounts, then a third.
 */
describe('account discovery', () => {
  const clock = new ManualClock(Math.floor(Date.now() / HOUR) * HOUR - 24 * HOUR);
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ clock, quotas: NO_QUOTAS, world: { accounts: 4 } });
  });
  afterAll(() => sim.close());

  const autoConfig = (out: string, token = TOKEN) =>
    configFor(
      sim,
      { type: 'file', path: out },
      {
        api: { baseUrl: sim.url, token },
        accounts: 'auto',
        jobs: {
          metrics: { enabled: false },
          streamstat: { enabled: false },
          dvr: { enabled: false },
          statistic: { groupings: ['total'] },
        },
      },
    );

  it('collects the accounts found at start and a new one found later, without a restart', async () => {
    sim.addToken(TOKEN, { accounts: ['acme', 'globex'] });
    const out = join(mkdtempSync(join(tmpdir(), 'disc-')), 'points.lp');
    const rt = await runtimeFor(autoConfig(out), clock);
    expect(rt.collector.jobs).toEqual([]);
    expect(await rt.discovery!.refresh()).toEqual(['acme', 'globex']);
    // The inventory answered: not one call of the statistic quota (5 a minute, shared with every statistics job).
    expect(rt.limiters.get('statistic').snapshot().recentCompletions).toBe(0);
    expect(sim.stats.apis.statistic.requests).toBe(0);
    expect(rt.collector.jobs.map((j) => j.key)).toEqual(['statistic/*/total']);
    expect((await rt.collector.tick()).filter((r) => r.error)).toEqual([]);
    expect(accountsWritten(out)).toEqual(['acme', 'globex']);
    const acmeBefore = rt.store.confirmed('statistic/acme/total');

    sim.addToken(TOKEN, { accounts: ['acme', 'globex', 'initech'] });
    clock.advance(HOUR);
    expect(await rt.discovery!.refresh()).toEqual(['initech']);
    expect(await rt.discovery!.refresh()).toEqual([]);
    expect(rt.collector.jobs.map((j) => j.key)).toEqual(['statistic/*/total']);
    // The shared job reads what any member lacks: acme from where it stopped, initech its own initialLookback (1 h);
    // calls planned are the calls made (one /times/accounts call per span).
    const [job] = rt.collector.jobs;
    const spans = rt.collector.pending(job!);
    const planned = spans.reduce((n, s) => n + job!.callsFor(s).least, 0);
    const before = sim.stats.apis.statistic.requests;
    expect((await rt.collector.tick()).filter((r) => r.error)).toEqual([]);
    expect(sim.stats.apis.statistic.requests - before).toBe(planned);
    expect(accountsWritten(out)).toEqual(['acme', 'globex', 'initech']);
    const acme = rt.store.confirmed('statistic/acme/total');
    const initech = rt.store.confirmed('statistic/initech/total');
    expect(acme).toEqual([{ from: acmeBefore[0]!.from, to: acmeBefore[0]!.to + HOUR }]);
    expect(initech).toEqual([{ from: acme[0]!.to - HOUR, to: acme[0]!.to }]);
    // initech has every bucket of its window, no gap before the job's watermark.
    expect(timesWritten(out).get('initech')!.size).toBe(HOUR / (5 * 60_000));
    await rt.close();
  });

  it('/healthz is unhealthy while no account has been discovered, naming the failure', async () => {
    const token = 'not-yet-granted';
    const rt = await runtimeFor(autoConfig(join(mkdtempSync(join(tmpdir(), 'disc-')), 'points.lp'), token), clock);
    await expect(rt.discovery!.refresh()).rejects.toThrow();
    expect(rt.telemetry.activeConditions()).toEqual({
      [DISCOVERY_CONDITION]: expect.stringMatching(/^no account discovered yet: .*inventory.*401/),
    });
    sim.addToken(token, { accounts: ['acme'] });
    expect(await rt.discovery!.refresh()).toEqual(['acme']);
    expect(rt.telemetry.activeConditions()).toEqual({});
    await rt.close();
  });

  it('the daemon discovers before its first pass', async () => {
    sim.addToken(TOKEN, { accounts: ['acme'] });
    const out = join(mkdtempSync(join(tmpdir(), 'disc-')), 'points.lp');
    const rt = await runtimeFor(autoConfig(out), clock);
    const daemon = startDaemon(rt, createLogger('warn', { pretty: false }));
    await daemon.firstPass;
    expect(accountsWritten(out)).toEqual(['acme']);
    await daemon.stop();
    await rt.close();
  });

  it('with --shard, keeps the discovered accounts of its shard only', async () => {
    const all = sim.world.accounts.map((a) => a.name);
    sim.addToken(TOKEN, { accounts: all });
    const out = join(mkdtempSync(join(tmpdir(), 'disc-')), 'points.lp');
    const shard = { index: 1, count: 2 };
    const config = applyShard(autoConfig(out), shard);
    expect(config.accounts).toBe('auto'); // applyShard accepts it: the shard is applied as accounts are found
    const { createRuntime } = await import('../../src/app/runtime.js');
    const rt = await createRuntime(config, clock, createLogger('warn', { pretty: false }), { shard });
    const mine = all.filter((a) => shardOf(a, 2) === 1).sort();
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.length).toBeLessThan(all.length);
    expect(await rt.discovery!.refresh()).toEqual(mine);
    await rt.close();
  });
});
