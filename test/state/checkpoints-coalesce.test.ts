import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

// Counts durable writes while keeping their real behaviour.
vi.mock('../../src/state/durable-file.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/state/durable-file.js')>();
  return { ...real, writeFileDurably: vi.fn(real.writeFileDurably) };
});

const { writeFileDurably } = await import('../../src/state/durable-file.js');
const { CheckpointStore } = await import('../../src/state/checkpoints.js');

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('write coalescing', () => {
  it('100 concurrent confirmations of one key cost a few writes, not 100', async () => {
    dir = await mkdtemp(join(tmpdir(), 'coalesce-'));
    const store = await CheckpointStore.open(dir);
    const write = vi.mocked(writeFileDurably);
    write.mockClear();
    const confirms = Array.from({ length: 100 }, (_, i) => store.confirm('k', { from: i * 10, to: i * 10 + 10 }));
    await Promise.all(confirms);
    expect(write.mock.calls.length).toBeGreaterThanOrEqual(1);
    expect(write.mock.calls.length).toBeLessThanOrEqual(2);
    expect(store.watermark('k')).toBe(1000);
    await store.close();
  });

  it('a failed write rejects exactly the confirmations of its batch and records none of them', async () => {
    dir = await mkdtemp(join(tmpdir(), 'coalesce-'));
    const store = await CheckpointStore.open(dir);
    await store.confirm('k', { from: 0, to: 10 });
    vi.mocked(writeFileDurably).mockRejectedValueOnce(Object.assign(new Error('ENOSPC: no space left'), { code: 'ENOSPC' }));
    await expect(store.confirm('k', { from: 10, to: 20 })).rejects.toThrow(/ENOSPC/);
    expect(store.watermark('k')).toBe(10);
    expect(store.missing('k', 0, 20)).toEqual([{ from: 10, to: 20 }]);
    await store.confirm('k', { from: 10, to: 20 });
    expect(store.watermark('k')).toBe(20);
    await store.close();
  });
});
