import { SOURCES } from '../sources/index.js';
import type { CollectorConfig } from './schema.js';
import { inShard, type Shard } from './shard.js';

// Apart from shard.ts so that the option's parser (loaded for --help) does not load every source.

/**
 * The config narrowed to one shard: its accounts, and what the sources' settings name with an account (DVR streams:
 * see each source's `narrow`). The result may have no account left.
 * `accounts: auto` stays auto: discovery keeps the accounts of the shard (inShard) as it finds them.
 */
export function narrowToShard(config: CollectorConfig, shard: Shard): CollectorConfig {
  const mine = (account: string) => inShard(account, shard);
  const accounts = config.accounts === 'auto' ? 'auto' : config.accounts.filter(mine);
  const jobs = { ...config.jobs };
  for (const { name, narrow } of SOURCES) if (narrow) Object.assign(jobs, { [name]: narrow(jobs[name], mine) });
  return { ...config, accounts, jobs };
}
