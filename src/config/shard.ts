import { Option } from 'commander';
import { CliError, EXIT_USAGE } from '../cli/common.js';
import type { CollectorConfig } from './schema.js';

/**
 * Sharding: `--shard i/n` (or env CDN_SHARD) keeps the accounts whose stable hash mod n equals i, so n instances
 * with one shared account list split it without overlap and without coordination. The hash is 32-bit FNV-1a over
 * the account name's UTF-8 bytes: it depends on nothing but the name, so an account stays in its shard across
 * restarts, hosts and versions, and adding or removing another account never moves it. (Changing n does move
 * accounts; their checkpoints stay with the old shard's state, so the new owner starts from `state.initialLookback`.)
 */
export interface Shard {
  index: number;
  count: number;
}

/** The option and env names, as errors must name them. */
export const SHARD_OPTION = '--shard';
export const SHARD_ENV = 'CDN_SHARD';

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** 32-bit FNV-1a of the UTF-8 bytes of `text`, as an unsigned integer. */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/** The shard (0 … count−1) that `account` belongs to among `count` shards. */
export function shardOf(account: string, count: number): number {
  return fnv1a32(account) % count;
}

/** Parses `i/n` (0 ≤ i < n); anything else is a usage error (exit 2) naming the option. */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || !Number.isSafeInteger(count) || count < 1 || index >= count) {
    throw new CliError(`${SHARD_OPTION} (env ${SHARD_ENV}): "${text}" must be i/n with 0 ≤ i < n, e.g. 0/3`, EXIT_USAGE);
  }
  return { index, count };
}

/** The `--shard i/n` option of `run` and `backfill`, defaulting to env CDN_SHARD. */
export function shardOption(): Option {
  return new Option(`${SHARD_OPTION} <i/n>`, 'collect only the accounts whose FNV-1a hash mod n is i (see docs/scaling.md)')
    .env(SHARD_ENV)
    .argParser(parseShard);
}

/**
 * The config narrowed to one shard: its accounts, and the DVR streams of those accounts (a stream belongs to the
 * shard of its account, so no two instances snapshot the same stream). A shard with no account is a usage error:
 * an idle instance would look healthy while collecting nothing.
 */
export function applyShard(config: CollectorConfig, shard: Shard | undefined): CollectorConfig {
  if (!shard || shard.count === 1) return config;
  const mine = (account: string) => shardOf(account, shard.count) === shard.index;
  const accounts = config.accounts.filter(mine);
  if (accounts.length === 0) {
    throw new CliError(
      `${SHARD_OPTION} ${shard.index}/${shard.count}: none of the ${config.accounts.length} configured accounts hashes to this shard; use fewer shards or explicit account lists`,
      EXIT_USAGE,
    );
  }
  const streams = config.jobs.dvr.streams.filter((s) => mine(s.account));
  return { ...config, accounts, jobs: { ...config.jobs, dvr: { ...config.jobs.dvr, streams } } };
}
