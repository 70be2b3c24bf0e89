import type { Clock } from '../clock.js';
import type { CollectorConfig } from '../config/schema.js';
import { inShard, type Shard } from '../config/shard.js';
import type { HttpClient } from '../http/client.js';
import type { LimiterSet } from '../limit/index.js';
import type { Logger } from '../log.js';
import { accountJobs, type SourcesLearnt } from '../sources/registry.js';
import { readAccounts } from '../sources/accounts.js';
import type { Collector } from './collector.js';
import { describeError } from './errors.js';
import type { ConditionReports } from './reports.js';

export interface DiscoveryDeps {
  config: CollectorConfig;
  /** With `--shard`, only the discovered accounts of this shard are collected. */
  shard: Shard | undefined;
  http: HttpClient;
  limiters: LimiterSet;
  collector: Collector;
  clock: Clock;
  log: Logger;
  /** Where the condition `accounts:discovery` is reported (/healthz). */
  conditions: ConditionReports;
  /** Shared with the jobs the runtime started with. */
  learnt: SourcesLearnt;
}

/** The /healthz condition while discovery has found no account: the instance would otherwise look idle and healthy. */
export const DISCOVERY_CONDITION = 'accounts:discovery';

/**
 * `accounts: auto`: reads the token's active accounts (the inventory endpoint, or the statistics grouping where it is
 * missing: src/sources/accounts.ts) and adds the jobs of each new one (of this shard) to the running collector.
 * Accounts are only ever added: one that disappears from the token keeps its jobs until the restart (its calls then
 * fail with 401 `account` and show in /healthz, rather than silently stopping). A statistics read goes through the
 * statistic limiter like any collection call, at live priority; the inventory is outside every quota.
 */
export class AccountDiscovery {
  private readonly known = new Set<string>();
  private running: Promise<string[]> | undefined;

  constructor(private readonly deps: DiscoveryDeps) {}

  /** The accounts found so far (of this shard). */
  get accounts(): string[] {
    return [...this.known].sort();
  }

  /** Reads the token's accounts once (a read under way is shared) and returns the new ones; throws if the read fails.
   * */
  refresh(): Promise<string[]> {
    this.running ??= this.read().finally(() => (this.running = undefined));
    return this.running;
  }

  private async read(): Promise<string[]> {
    const { config, shard, collector, log, conditions } = this.deps;
    const http = this.deps.http.withGate(this.deps.limiters.gate('live'));
    // A later failure leaves the accounts found so far collecting (logged by the daemon); only "none yet" is unhealthy.
    const { accounts: found, from } = await readAccounts(http, this.deps.clock.now(), config.api.language).catch(
      (err: unknown) => {
        if (this.known.size === 0)
          conditions.condition(DISCOVERY_CONDITION, `no account discovered yet: ${describeError(err)}`);
        throw err;
      },
    );
    // Found in the inventory, or with traffic in the statistics grouping: either way the token reads them.
    for (const account of found)
      this.deps.learnt.accountStanding?.answered(account, from === 'inventory' ? 'inventory' : 'statistic');
    const fresh = found.filter((a) => !this.known.has(a) && (!shard || inShard(a, shard)));
    for (const account of fresh) this.known.add(account);
    if (fresh.length > 0) {
      const jobs = collector.addJobs(accountJobs(config, fresh, this.deps.learnt));
      log.info({ accounts: fresh, jobs: jobs.length, total: this.known.size, from }, 'accounts discovered');
    }
    const scope = shard ? ` in shard ${shard.index}/${shard.count}` : '';
    const none = from === 'inventory' ? 'no active account' : 'no account with traffic in the last day';
    conditions.condition(DISCOVERY_CONDITION, this.known.size === 0 ? `the token has ${none}${scope}` : undefined);
    return fresh;
  }
}
