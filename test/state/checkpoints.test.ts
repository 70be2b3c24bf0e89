import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ParameterError } from '../../src/http/errors.js';
import { fileNameOf } from '../../src/state/checkpoint-file.js';
import { CheckpointStore } from '../../src/state/checkpoints.js';
import { CheckpointCorruptError } from '../../src/state/errors.js';

const KEY = 'metrics/acme "prod"/1 min';
const M = 60_000;
let dir: string;
let store: CheckpointStore | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'checkpoints-'));
});
afterEach(async () => {
  await store?.close();
  store = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function reopen(): Promise<CheckpointStore> {
  await store?.close();
  store = await CheckpointStore.open(dir, { clock: new ManualClock(1_000_000) });
  return store;
}

describe('CheckpointStore', () => {
  it('keeps out-of-order confirmations and holds the watermark at the first gap', async () => {
    const s = await reopen();
    expect(s.watermark(KEY)).toBeUndefined();
    await s.confirm(KEY, { from: 0, to: M });
    await s.confirm(KEY, { from: 2 * M, to: 3 * M });
    await s.confirm(KEY, { from: 4 * M, to: 5 * M });
    expect(s.watermark(KEY)).toBe(M);
    expect(s.missing(KEY, 0, 6 * M)).toEqual([
      { from: M, to: 2 * M },
      { from: 3 * M, to: 4 * M },
      { from: 5 * M, to: 6 * M },
    ]);
    await s.confirm(KEY, { from: M, to: 2 * M });
    expect(s.watermark(KEY)).toBe(3 * M);
    expect(s.confirmed(KEY)).toEqual([
      { from: 0, to: 3 * M },
      { from: 4 * M, to: 5 * M },
    ]);
    expect(s.lastConfirmedAt(KEY)).toBe(1_000_000);
  });

  it('never moves the watermark backwards when older history is confirmed later', async () => {
    const s = await reopen();
    await s.confirm(KEY, { from: 10 * M, to: 20 * M });
    await s.confirm(KEY, { from: 0, to: M });
    expect(s.watermark(KEY)).toBe(20 * M);
  });

  it('persists across reopen, per key, with hostile key names', async () => {
    const s = await reopen();
    await s.confirm(KEY, { from: 0, to: M });
    await s.confirm('other/../../key', { from: 5 * M, to: 6 * M });
    const again = await reopen();
    expect(again.keys().sort()).toEqual([KEY, 'other/../../key'].sort());
    expect(again.confirmed(KEY)).toEqual([{ from: 0, to: M }]);
    expect(again.watermark('other/../../key')).toBe(6 * M);
    expect((await readdir(dir)).every((name) => !name.includes('/'))).toBe(true);
  });

  it('coalesces concurrent confirmations into few writes, and every one is durable when it resolves', async () => {
    const s = await reopen();
    const spans = Array.from({ length: 100 }, (_, i) => ({ from: i * M, to: (i + 1) * M })).reverse();
    await Promise.all(spans.map((span) => s.confirm(KEY, span)));
    expect(s.watermark(KEY)).toBe(100 * M);
    const file = JSON.parse(await readFile(join(dir, fileNameOf(KEY)), 'utf8')) as { spans: number[][]; watermark: number };
    expect(file.spans).toEqual([[0, 100 * M]]);
    expect(file.watermark).toBe(100 * M);
  });

  it('compacts spans before a horizon and raises a watermark stuck below it', async () => {
    const s = await reopen();
    await s.confirm(KEY, { from: 0, to: M });
    await s.confirm(KEY, { from: 3 * M, to: 4 * M });
    await s.confirm(KEY, { from: 6 * M, to: 8 * M });
    await s.compact(KEY, 2 * M);
    expect(s.confirmed(KEY)).toEqual([
      { from: 3 * M, to: 4 * M },
      { from: 6 * M, to: 8 * M },
    ]);
    expect(s.watermark(KEY)).toBe(2 * M);
    await s.compact(KEY, 3.5 * M);
    expect(s.watermark(KEY)).toBe(4 * M);
    expect((await reopen()).confirmed(KEY)).toEqual([
      { from: 3.5 * M, to: 4 * M },
      { from: 6 * M, to: 8 * M },
    ]);
  });

  it('rejects invalid spans before touching the file', async () => {
    const s = await reopen();
    await expect(s.confirm(KEY, { from: M, to: M })).rejects.toThrow(ParameterError);
    await expect(s.confirm('', { from: 0, to: M })).rejects.toThrow(/key/);
    expect(await readdir(dir)).toEqual(['state.lock']);
  });

  it('removes stray temp files of a killed writer on open', async () => {
    const s = await reopen();
    await s.confirm(KEY, { from: 0, to: M });
    await s.close();
    store = undefined;
    await writeFile(join(dir, `${fileNameOf(KEY)}.tmp-99999-3`), '{"half');
    const again = await reopen();
    expect(again.watermark(KEY)).toBe(M);
    expect((await readdir(dir)).some((name) => name.includes('.tmp-'))).toBe(false);
  });
});

describe('corrupt checkpoint files', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['truncated JSON', '{"version":1,"key":', /not JSON/],
    ['wrong shape', '{"version":1,"key":"k","watermark":"soon","confirmedAt":null,"spans":[]}', /watermark/],
    ['unsorted spans', `{"version":1,"key":"k","watermark":null,"confirmedAt":null,"spans":[[5,6],[1,2]]}`, /spans\.1/],
    ['empty file', '', /not JSON/],
  ];
  for (const [name, content, problem] of cases) {
    it(`${name}: a clear error naming the path, and the file is left alone`, async () => {
      const path = join(dir, fileNameOf('k'));
      await writeFile(path, content);
      const opening = CheckpointStore.open(dir);
      await expect(opening).rejects.toThrow(CheckpointCorruptError);
      await expect(opening).rejects.toThrow(path);
      await expect(opening).rejects.toThrow(problem);
      expect(await readFile(path, 'utf8')).toBe(content);
      // The failed open released its lock.
      expect(await readdir(dir)).not.toContain('state.lock');
    });
  }

  it('a file under the wrong name is corrupt, not a silent second key', async () => {
    const path = join(dir, fileNameOf('a'));
    await writeFile(path, '{"version":1,"key":"b","watermark":null,"confirmedAt":null,"spans":[]}');
    await expect(CheckpointStore.open(dir)).rejects.toThrow(/belongs in/);
  });
});
