import { Option } from 'commander';
import { readShard, type Shard } from '../../config/shard.js';
import { CliError, EXIT_USAGE } from './common.js';

/** The option and env names, as errors must name them. */
export const SHARD_OPTION = '--shard';
const SHARD_ENV = 'CDN_SHARD';

/** Parses `i/n` (0 ≤ i < n); anything else is a usage error (exit 2) naming the option. */
export function parseShard(text: string): Shard {
  const shard = readShard(text);
  if (!shard)
    throw new CliError(
      `${SHARD_OPTION} (env ${SHARD_ENV}): "${text}" must be i/n with 0 ≤ i < n, e.g. 0/3`,
      EXIT_USAGE,
    );
  return shard;
}

/** The `--shard i/n` option of `run` and `backfill`, defaulting to env CDN_SHARD (sharding: src/config/shard.ts). */
export function shardOption(): Option {
  return new Option(
    `${SHARD_OPTION} <i/n>`,
    'collect only the accounts whose FNV-1a hash mod n is i (see docs/scaling.md)',
  )
    .env(SHARD_ENV)
    .argParser(parseShard);
}
