import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { SET_ASIDE_FILE } from '../../src/state/set-aside-file.js';
import { MAX_RETRY_MS, retryDelayMs, SetAsideStore } from '../../src/state/set-aside.js';
import { readStateSnapshot } from '../../src/state/snapshot.js';

const MIN = 60_000;
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'aside-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('the set-aside list (state/set-aside.json)', () => {
  it('survives a restart, and a reader without the lock sees it', async () => {
    const dir = tempDir();
    const clock = new ManualClock(1_000 * MIN);
    const { store } = await SetAsideStore.open(dir, { clock });
    await store.add('metrics/acme', { from: 0, to: 10 * MIN }, 'data.0.x: Expected number');
    const { store: again, problem } = await SetAsideStore.open(dir, { clock });
    expect(problem).toBeUndefined();
    expect(again.list('metrics/acme')).toEqual([
      {
        from: 0,
        to: 10 * MIN,
        reason: 'data.0.x: Expected number',
        firstAt: clock.now(),
        attempts: 1,
        nextRetryAt: clock.now() + 10 * MIN,
      },
    ]);
    expect((await readStateSnapshot(dir, Date.now())).jobs.get('metrics/acme')?.setAside).toHaveLength(1);
    await again.resolve('metrics/acme', { from: 0, to: 10 * MIN });
    expect(JSON.parse(readFileSync(join(dir, SET_ASIDE_FILE), 'utf8'))).toEqual({ version: 1, jobs: {} });
  });

  it('retries slow down from 10 minutes to at most 6 hours; a hostile reason cannot grow the file', async () => {
    expect([1, 2, 3].map(retryDelayMs)).toEqual([10 * MIN, 20 * MIN, 40 * MIN]);
    expect(retryDelayMs(10)).toBe(MAX_RETRY_MS);
    expect(retryDelayMs(10_000)).toBe(MAX_RETRY_MS);
    const store = SetAsideStore.inMemory(new ManualClock(0));
    const entry = await store.add('k', { from: 0, to: MIN }, 'x'.repeat(100_000));
    expect(entry!.reason.length).toBeLessThan(600);
  });

  it(
    'an unreadable file is reported and the list starts empty (its spans are collected again, ' + 'never skipped)',
    async () => {
      const dir = tempDir();
      writeFileSync(join(dir, SET_ASIDE_FILE), '{"version":1,"jobs":{"k":[{"from":5,"to":1}]}}');
      const { store, problem } = await SetAsideStore.open(dir);
      expect(problem).toMatch(/unreadable/);
      expect(store.keys()).toEqual([]);
      expect((await readStateSnapshot(dir, Date.now())).problems).toEqual([problem]);
    },
  );

  it('forgets entries older than the horizon and says which', async () => {
    const store = SetAsideStore.inMemory(new ManualClock(0));
    await store.add('k', { from: 0, to: MIN }, 'a');
    await store.add('k', { from: 5 * MIN, to: 6 * MIN }, 'b');
    expect(await store.dropBefore('k', 2 * MIN)).toMatchObject([{ from: 0, reason: 'a' }]);
    expect(store.list('k')).toMatchObject([{ from: 5 * MIN }]);
  });
});
