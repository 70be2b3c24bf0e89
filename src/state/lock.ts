import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { link, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { systemClock, type Clock } from '../clock.js';
import { syncDirectory } from './durable-file.js';
import { StateLockedError } from './errors.js';

interface LockOwner {
  pid: number;
  host: string;
  /** Distinguishes our lock from a later one with the same pid (containers restart as pid 1). */
  nonce: string;
  since: string;
}

/** The owner touches the lock file this often; a lock untouched for STALE_AFTER heartbeats is abandoned. */
export const LOCK_HEARTBEAT_MS = 10_000;
const STALE_AFTER = 3;

export interface LockOptions {
  /** Tests shorten it; the staleness limit scales with it. */
  heartbeatMs?: number;
  /**
   * Stamps the lock's refreshes and measures another's age against them (tests). Callers keep the default, the
   * system's: every process sharing the directory, on any host, must read file times on the same clock.
   */
  clock?: Clock;
}

/**
 * Locks held by this process (path → our nonce), so a second `open` of the same directory fails like a second process
 * would, and so that any exit of the process releases them.
 */
const heldHere = new Map<string, string>();

/**
 * However the process ends short of a kill -9 (process.exit after a signal, a closed stdout, an error), its locks go
 * with it: the next command finds the directory free instead of a lock to take over. Synchronous, as 'exit' requires.
 */
function releaseHeldLocksOnExit(): void {
  for (const [path, nonce] of heldHere) {
    try {
      if (parseOwner(readFileSync(path, 'utf8'))?.nonce === nonce) rmSync(path, { force: true });
    } catch {
      // Gone already, or unreadable: nothing of ours to remove.
    }
  }
}
let exitHookInstalled = false;

/**
 * `state.lock` in the state directory: one collector per directory. Created with link(2), which fails atomically when
 * the file exists, from a fully written temp file, so the lock never appears half written. A lock whose pid is dead on
 * this host (kill -9, power loss) is taken over. The owner refreshes the file's mtime every heartbeat, so a lock from
 * another host (a re-created container gets a new host name) is taken over once it has not been refreshed for three
 * heartbeats, and held while it is: a live owner anywhere keeps it.
 */
export class StateLock {
  private readonly heartbeat: NodeJS.Timeout;

  private constructor(
    readonly path: string,
    private readonly owner: LockOwner,
    private readonly clock: Clock,
    heartbeatMs: number,
  ) {
    this.heartbeat = setInterval(() => void this.touch(), heartbeatMs);
    this.heartbeat.unref();
  }

  static async acquire(dir: string, opts: LockOptions = {}): Promise<StateLock> {
    const heartbeatMs = opts.heartbeatMs ?? LOCK_HEARTBEAT_MS;
    const clock = opts.clock ?? systemClock;
    const path = resolve(join(dir, 'state.lock'));
    if (heldHere.has(path)) throw new StateLockedError(path, undefined);
    const owner: LockOwner = {
      pid: process.pid,
      host: hostname(),
      nonce: randomUUID(),
      since: new Date(clock.now()).toISOString(),
    };
    const temp = `${path}.${process.pid}.new`;
    await writeFile(temp, `${JSON.stringify(owner)}\n`);
    try {
      // A few rounds: each round either wins, meets a live owner (error) or removes one stale lock.
      for (let round = 0; round < 5; round++) {
        if (await tryLink(temp, path)) {
          await syncDirectory(dir);
          heldHere.set(path, owner.nonce);
          if (!exitHookInstalled) process.once('exit', releaseHeldLocksOnExit);
          exitHookInstalled = true;
          return new StateLock(path, owner, clock, heartbeatMs);
        }
        const existing = await readIfExists(path);
        if (existing === undefined) continue;
        const other = parseOwner(existing);
        if (other && isAlive(other, await ageMs(path, clock), heartbeatMs * STALE_AFTER))
          throw new StateLockedError(path, other.pid);
        await removeIfUnchanged(path, existing);
      }
      throw new StateLockedError(path, undefined);
    } finally {
      await rm(temp, { force: true });
    }
  }

  /** Removes the lock if it is still ours (never another instance's lock that took over meanwhile). */
  async release(): Promise<void> {
    clearInterval(this.heartbeat);
    heldHere.delete(this.path);
    if (await this.isOurs()) await rm(this.path, { force: true });
  }

  /** The heartbeat: refreshes the mtime of our lock; never touches a lock that is no longer ours. */
  private async touch(): Promise<void> {
    try {
      if (await this.isOurs()) {
        const now = new Date(this.clock.now());
        await utimes(this.path, now, now);
      }
    } catch {
      // A missed beat is retried on the next one; three in a row make the lock look stale, as they should.
    }
  }

  private async isOurs(): Promise<boolean> {
    const existing = await readIfExists(this.path);
    return existing !== undefined && parseOwner(existing)?.nonce === this.owner.nonce;
  }
}

/**
 * The live process holding the state directory's lock (its pid, as its lock file names it), or undefined when no
 * live process holds it: no lock file, an unreadable one, a dead pid on this host, or a lock from another host
 * whose heartbeat stopped. What a command waiting on the holder (a backfill handed to the daemon) asks.
 */
export async function lockHolder(dir: string, opts: LockOptions = {}): Promise<{ pid: number } | undefined> {
  const path = resolve(join(dir, 'state.lock'));
  const text = await readIfExists(path);
  const owner = text === undefined ? undefined : parseOwner(text);
  if (!owner) return undefined;
  const staleAfterMs = (opts.heartbeatMs ?? LOCK_HEARTBEAT_MS) * STALE_AFTER;
  // A lock of this very process is alive by definition (a test handing a backfill to a daemon in-process).
  if (heldHere.get(path) === owner.nonce) return { pid: owner.pid };
  return isAlive(owner, await ageMs(path, opts.clock ?? systemClock), staleAfterMs) ? { pid: owner.pid } : undefined;
}

/** Milliseconds since the lock file was last refreshed (0 if it vanished meanwhile: the next round decides). */
async function ageMs(path: string, clock: Clock): Promise<number> {
  try {
    return Math.max(0, clock.now() - (await stat(path)).mtimeMs);
  } catch {
    return 0;
  }
}

async function tryLink(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Unreadable content cannot name a live owner: it is treated as stale. */
function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (typeof value.pid !== 'number' || typeof value.host !== 'string' || typeof value.nonce !== 'string')
      return undefined;
    return value as LockOwner;
  } catch {
    return undefined;
  }
}

function isAlive(owner: LockOwner, ageMs: number, staleAfterMs: number): boolean {
  // A pid on another host (shared volume, re-created container) cannot be checked: its heartbeat tells.
  if (owner.host !== hostname()) return ageMs < staleAfterMs;
  // Our own pid in a lock we do not hold is a previous incarnation (e.g. a restarted container, pid 1 again).
  if (owner.pid === process.pid) return false;
  return isProcessAlive(owner.pid);
}

/** Whether a process `pid` runs on this host (one we may not signal, EPERM, runs too). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Narrows the takeover race: only delete the stale lock we inspected, not one a concurrent starter just created. */
async function removeIfUnchanged(path: string, seen: string): Promise<void> {
  if ((await readIfExists(path)) === seen) await rm(path, { force: true });
}
