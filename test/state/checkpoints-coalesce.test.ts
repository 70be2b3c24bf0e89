import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { CheckpointStore } from '../../src/state/checkpoints.js';
import { writeFileDurably } from '../../src/state/durable-file.js';

// Counts durable writes while keeping their real behaviour (no module mock: unit files share a module cache).
const write = vi.fn(writeFileDurably);
const open = (at: string) => CheckpointStore.open(at, { writeFile: write });

/** Checkpoint times must be plausible (after 2000, not in the future). */
const T = Date.UTC(2024, 0, 1);
let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('write coalescing', () => {
  it('100 concurrent confirmations of one key cost a few writes, not 100', async () => {
    dir = await mkdtemp(join(tmpdir(), 'coalesce-'));
    const store = await open(dir);
    write.mockClear();
    const confirms = Array.from({ length: 100 }, (_, i) =>
      store.confirm('k', { from: T + i * 10, to: T + i * 10 + 10 }),
    );
    await Promise.all(confirms);
    expect(write.mock.calls.length).toBeGreaterThanOrEqual(1);
    expect(write.mock.calls.length).toBeLessThanOrEqual(2);
    expect(store.watermark('k')).toBe(T + 1000);
    await store.close();
  });

  it('a failed write rejects exactly the confirmations of its batch and records none of them', async () => {
    dir = await mkdtemp(join(tmpdir(), 'coalesce-'));
    const store = await open(dir);
    await store.confirm('k', { from: T, to: T + 10 });
    write.mockRejectedValueOnce(Object.assign(new Error('ENOSPC: no space left'), { code: 'ENOSPC' }));
    await expect(store.confirm('k', { from: T + 10, to: T + 20 })).rejects.toThrow(/ENOSPC/);
    expect(store.watermark('k')).toBe(T + 10);
    expect(store.missing('k', T, T + 20)).toEqual([{ from: T + 10, to: T + 20 }]);
    await store.confirm('k', { from: T + 10, to: T + 20 });
    expect(store.watermark('k')).toBe(T + 20);
    await store.close();
  });
});
