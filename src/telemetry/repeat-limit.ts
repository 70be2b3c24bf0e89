/**
 * How often a line about a condition that goes on is repeated: at once the first time, then at most once every
 * `everyMs` per key (a refused measurement, an API answering "not found"), so that a condition met at every pass
 * stays visible without flooding the log.
 */
export class RepeatLimit<K> {
  private readonly linedAt = new Map<K, number>();

  constructor(private readonly everyMs: number) {}

  /** Whether the line of `key` is due at `now`; if it is, it counts as written then. */
  due(key: K, now: number): boolean {
    const last = this.linedAt.get(key);
    if (last !== undefined && now - last < this.everyMs) return false;
    this.linedAt.set(key, now);
    return true;
  }

  /** Forgets the keys `match` picks: their next line is due at once (their condition ended). */
  forget(match: (key: K) => boolean): void {
    for (const key of this.linedAt.keys()) if (match(key)) this.linedAt.delete(key);
  }
}
