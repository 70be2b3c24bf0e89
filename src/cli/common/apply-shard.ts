import { narrowToShard } from '../../config/narrow-shard.js';
import type { CollectorConfig } from '../../config/schema.js';
import type { Shard } from '../../config/shard.js';
import { shardQuotas } from '../../config/shard-quota.js';
import { CliError, EXIT_USAGE } from './common.js';
import { SHARD_OPTION } from './shard.js';

/**
 * The config narrowed to the shard, if one was given, with its part of the quotas (shardQuotas: shards that share a
 * login share its quota). A shard with no account is a usage error: an idle instance would look healthy while
 * collecting nothing.
 */
export function applyShard(config: CollectorConfig, shard: Shard | undefined): CollectorConfig {
  if (!shard || shard.count === 1) return config;
  const narrowed = narrowToShard(config, shard);
  // Discovered accounts are narrowed as they are found (src/collector/discovery.ts).
  if (narrowed.accounts.length === 0 && config.accounts !== 'auto') {
    throw new CliError(
      `${SHARD_OPTION} ${shard.index}/${shard.count}: none of the ${config.accounts.length} configured accounts ` +
        `hashes to this shard; use fewer shards or explicit account lists`,
      EXIT_USAGE,
    );
  }
  return shardQuotas(narrowed, shard);
}
