import { API_NAMES } from '../spec/apis.js';
import { durationText } from '../duration-text.js';
import { ConfigError } from './loader.js';
import type { CollectorConfig } from './schema.js';
import type { Shard } from './shard.js';

/**
 * Whether the shards of this config spend one quota between them. The service counts the calls of a login (and of a
 * token) together whatever process sends them, while each shard's limiter counts only its own calls, and shards
 * cannot count each other's: each has a state dir of its own (its lock refuses a second process), so no journal is
 * shared. `api.shardQuota` says it; `auto` takes a login as shared by every shard and a token as a shard's own.
 */
export function quotaSharedByShards(config: CollectorConfig): boolean {
  const { shardQuota, username } = config.api;
  return shardQuota === 'divided' || (shardQuota === 'auto' && username !== undefined);
}

/**
 * The config with the part of every quota that one of `shard.count` shards may spend: floor(calls / n) of each when
 * the shards share the quota, so that together they never exceed it; unchanged otherwise. A quota too small to give
 * every shard one call per period is refused (ConfigError naming it) rather than exceeded.
 */
export function shardQuotas(config: CollectorConfig, shard: Shard): CollectorConfig {
  if (shard.count === 1 || !quotaSharedByShards(config)) return config;
  const quotas = { ...config.quotas };
  for (const api of API_NAMES) {
    const { calls, period } = config.quotas[api];
    const share = Math.floor(calls / shard.count);
    if (share < 1) {
      throw new ConfigError(
        `quotas.${api}.calls`,
        `${calls} per ${durationText(period)} shared by ${shard.count} shards (api.shardQuota: ` +
          `${config.api.shardQuota}) leaves none per shard: run at most ${calls} shards on one login or token, or ` +
          'give each shard its own and set api.shardQuota: whole',
      );
    }
    quotas[api] = { calls: share, period };
  }
  return { ...config, quotas };
}

/** What a shard that shares its quotas spends of each (`statistic 2/1m, …`), or undefined when it spends them whole. */
export function shardQuotaText(config: CollectorConfig, shard: Shard | undefined): string | undefined {
  if (!shard || shard.count === 1 || !quotaSharedByShards(config)) return undefined;
  return API_NAMES.map((api) => `${api} ${config.quotas[api].calls}/${durationText(config.quotas[api].period)}`).join(
    ', ',
  );
}
