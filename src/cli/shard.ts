import { Option } from 'commander';
import { narrowToShard, readShard, type Shard } from '../config/shard.js';
import type { CollectorConfig } from '../config/schema.js';
import { CliError, EXIT_USAGE } from './common.js';

/** The option and env names, as errors must name them. */
const SHARD_OPTION = '--shard';
const SHARD_ENV = 'CDN_SHARD';

/** Parses `i/n` (0 ≤ i < n); anything else is a usage error (exit 2) naming the option. */
export function parseShard(text: string): Shard {
  const shard = readShard(text);
  if (!shard) throw new CliError(`${SHARD_OPTION} (env ${SHARD_ENV}): "${text}" must be i/n with 0 ≤ i < n, e.g. 0/3`, EXIT_USAGE);
  return shard;
}

/** The `--shard i/n` option of `run` and `backfill`, defaulting to env CDN_SHARD (sharding: src/config/shard.ts). */
export function shardOption(): Option {
  return new Option(`${SHARD_OPTION} <i/n>`, 'collect only the accounts whose FNV-1a hash mod n is i (see docs/scaling.md)')
    .env(SHARD_ENV)
    .argParser(parseShard);
}

/**
 * The config narrowed to the shard, if one was given. A shard with no account is a usage error: an idle instance
 * would look healthy while collecting nothing.
 */
export function applyShard(config: CollectorConfig, shard: Shard | undefined): CollectorConfig {
  if (!shard || shard.count === 1) return config;
  const narrowed = narrowToShard(config, shard);
  // Discovered accounts are narrowed as they are found (src/collector/discovery.ts).
  if (narrowed.accounts.length === 0 && config.accounts !== 'auto') {
    throw new CliError(
      `${SHARD_OPTION} ${shard.index}/${shard.count}: none of the ${config.accounts.length} configured accounts hashes to this shard; use fewer shards or explicit account lists`,
      EXIT_USAGE,
    );
  }
  return narrowed;
}
