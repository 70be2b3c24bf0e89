/**
 * Sharding: `--shard i/n` (or env CDN_SHARD) keeps the accounts whose stable hash mod n equals i, so n instances
 * with one shared account list split it without overlap and without coordination. The hash is 32-bit FNV-1a over
 * the account name's UTF-8 bytes: it depends on nothing but the name, so an account stays in its shard across
 * restarts, hosts and versions, and adding or removing another account never moves it. (Changing n does move
 * accounts; their checkpoints stay with the old shard's state, so the new owner starts from `state.initialLookback`.)
 * The option itself, and its usage errors, are the CLI's (src/cli/common/shard.ts).
 */
export interface Shard {
  index: number;
  count: number;
}

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

export function inShard(account: string, shard: Shard): boolean {
  return shardOf(account, shard.count) === shard.index;
}

/** Reads `i/n` (0 ≤ i < n); undefined for anything else. */
export function readShard(text: string): Shard | undefined {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) return undefined;
  const index = Number(m[1]);
  const count = Number(m[2]);
  return Number.isSafeInteger(count) && count >= 1 && index < count ? { index, count } : undefined;
}
