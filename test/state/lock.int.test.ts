import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { CheckpointStore } from '../../src/state/checkpoints.js';
import { StateLockedError } from '../../src/state/errors.js';
import { LOCK_HEARTBEAT_MS, StateLock } from '../../src/state/lock.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'state-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const lockPath = () => join(dir, 'state.lock');
const lockOf = (pid: number, host = hostname()) =>
  JSON.stringify({ pid, host, nonce: `n${pid}`, since: '2024-01-01T00:00:00Z' });

/** A pid that certainly belongs to no process: a child that has already exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((done) => child.on('exit', done));
  return child.pid!;
}

describe('state.lock', () => {
  it('writes our pid and removes the lock on close', async () => {
    const store = await CheckpointStore.open(dir);
    expect(JSON.parse(await readFile(lockPath(), 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    await store.close();
    await expect(readFile(lockPath())).rejects.toThrow(/ENOENT/);
  });

  it('refuses a second open of the same directory while the first is open', async () => {
    const store = await CheckpointStore.open(dir);
    await expect(CheckpointStore.open(dir)).rejects.toThrow(StateLockedError);
    await store.close();
    await (await CheckpointStore.open(dir)).close();
  });

  it('refuses a directory locked by another live process, naming the lock and pid', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      await writeFile(lockPath(), lockOf(child.pid!));
      const opening = CheckpointStore.open(dir);
      await expect(opening).rejects.toThrow(StateLockedError);
      await expect(opening).rejects.toThrow(new RegExp(`${lockPath()}.*live process ${child.pid}`));
      expect(await readFile(lockPath(), 'utf8')).toBe(lockOf(child.pid!));
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('takes over the stale lock of a dead pid', async () => {
    await writeFile(lockPath(), lockOf(await deadPid()));
    const store = await CheckpointStore.open(dir);
    expect(JSON.parse(await readFile(lockPath(), 'utf8'))).toMatchObject({ pid: process.pid });
    await store.close();
  });

  it('takes over a lock with our own pid left by a previous incarnation (restarted container)', async () => {
    await writeFile(lockPath(), lockOf(process.pid));
    const store = await CheckpointStore.open(dir);
    await store.close();
  });

  it('assumes a lock from another host is alive while it is refreshed', async () => {
    await writeFile(lockPath(), lockOf(1, 'some-other-host'));
    await expect(CheckpointStore.open(dir)).rejects.toThrow(StateLockedError);
    expect(await readFile(lockPath(), 'utf8')).toBe(lockOf(1, 'some-other-host'));
  });

  it('takes over a lock from another host not refreshed for three heartbeats (a re-created container)', async () => {
    await writeFile(lockPath(), lockOf(1, 'old-container-id'));
    const past = new Date(Date.now() - 3 * LOCK_HEARTBEAT_MS - 1000);
    await utimes(lockPath(), past, past);
    const store = await CheckpointStore.open(dir);
    expect(JSON.parse(await readFile(lockPath(), 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    await store.close();
  });

  it("measures another host's lock against its clock: stale by it although just written", async () => {
    await writeFile(lockPath(), lockOf(1, 'old-container-id'));
    const { mtimeMs } = await stat(lockPath());
    const lock = await StateLock.acquire(dir, { clock: new ManualClock(mtimeMs + 3 * LOCK_HEARTBEAT_MS + 1000) });
    expect(JSON.parse(await readFile(lockPath(), 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    await lock.release();
  });

  it("measures another host's lock against its clock: fresh by it although written long ago", async () => {
    await writeFile(lockPath(), lockOf(1, 'some-other-host'));
    const past = new Date('2024-03-01T12:00:00Z');
    await utimes(lockPath(), past, past);
    const clock = new ManualClock(past.getTime() + LOCK_HEARTBEAT_MS);
    await expect(StateLock.acquire(dir, { clock })).rejects.toThrow(StateLockedError);
    expect(await readFile(lockPath(), 'utf8')).toBe(lockOf(1, 'some-other-host'));
  });

  it('the owner stamps its refreshes with its clock', async () => {
    const at = Date.parse('2024-03-01T12:00:00Z');
    const lock = await StateLock.acquire(dir, { heartbeatMs: 20, clock: new ManualClock(at) });
    await vi.waitFor(async () => expect((await stat(lockPath())).mtimeMs).toBe(at));
    expect(JSON.parse(await readFile(lockPath(), 'utf8'))).toMatchObject({ since: '2024-03-01T12:00:00.000Z' });
    await lock.release();
  });

  it('the owner refreshes its lock, so another host never sees it stale while it lives', async () => {
    const lock = await StateLock.acquire(dir, { heartbeatMs: 20 });
    const past = new Date(Date.now() - 3_600_000);
    await utimes(lockPath(), past, past);
    await vi.waitFor(async () => expect((await stat(lockPath())).mtimeMs).toBeGreaterThan(past.getTime() + 1000));
    await lock.release();
  });
});
