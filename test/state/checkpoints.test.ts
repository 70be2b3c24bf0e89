import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ParameterError } from '../../src/errors.js';
import { fileNameOf } from '../../src/state/checkpoint-file.js';
import { CheckpointStore } from '../../src/state/checkpoints.js';
import { CheckpointCorruptError } from '../../src/state/errors.js';

const KEY = 'metrics/acme "prod"/1 min';
const M = 60_000;
/** Checkpoint times must be plausible (after 2000, not in the future): spans start here. */
const T = Date.UTC(2024, 0, 1);
const DAY = 24 * 60 * M;
const NOW = T + 7 * DAY;
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
  store = await CheckpointStore.open(dir, { clock: new ManualClock(NOW) });
  return store;
}

describe('CheckpointStore', () => {
  it('keeps out-of-order confirmations and holds the watermark at the first gap', async () => {
    const s = await reopen();
    expect(s.watermark(KEY)).toBeUndefined();
    await s.confirm(KEY, { from: T, to: T + M });
    await s.confirm(KEY, { from: T + 2 * M, to: T + 3 * M });
    await s.confirm(KEY, { from: T + 4 * M, to: T + 5 * M });
    expect(s.watermark(KEY)).toBe(T + M);
    expect(s.missing(KEY, T, T + 6 * M)).toEqual([
      { from: T + M, to: T + 2 * M },
      { from: T + 3 * M, to: T + 4 * M },
      { from: T + 5 * M, to: T + 6 * M },
    ]);
    await s.confirm(KEY, { from: T + M, to: T + 2 * M });
    expect(s.watermark(KEY)).toBe(T + 3 * M);
    expect(s.confirmed(KEY)).toEqual([
      { from: T, to: T + 3 * M },
      { from: T + 4 * M, to: T + 5 * M },
    ]);
    expect(s.lastConfirmedAt(KEY)).toBe(NOW);
  });

  it('never moves the watermark backwards when older history is confirmed later', async () => {
    const s = await reopen();
    await s.confirm(KEY, { from: T + 10 * M, to: T + 20 * M });
    await s.confirm(KEY, { from: T, to: T + M });
    expect(s.watermark(KEY)).toBe(T + 20 * M);
  });

  it('persists across reopen, per key, with hostile key names', async () => {
    const s = await reopen();
    await s.confirm(KEY, { from: T, to: T + M });
    await s.confirm('other/../../key', { from: T + 5 * M, to: T + 6 * M });
    const again = await reopen();
    expect(again.keys().sort()).toEqual([KEY, 'other/../../key'].sort());
    expect(again.confirmed(KEY)).toEqual([{ from: T, to: T + M }]);
    expect(again.watermark('other/../../key')).toBe(T + 6 * M);
    expect((await readdir(dir)).every((name) => !name.includes('/'))).toBe(true);
  });

  it('coalesces concurrent confirmations into few writes, and every one is durable when it resolves', async () => {
    const s = await reopen();
    const spans = Array.from({ length: 100 }, (_, i) => ({ from: T + i * M, to: T + (i + 1) * M })).reverse();
    await Promise.all(spans.map((span) => s.confirm(KEY, span)));
    expect(s.watermark(KEY)).toBe(T + 100 * M);
    const file = JSON.parse(await readFile(join(dir, fileNameOf(KEY)), 'utf8')) as {
      spans: number[][];
      watermark: number;
    };
    expect(file.spans).toEqual([[T, T + 100 * M]]);
    expect(file.watermark).toBe(T + 100 * M);
  });

  it('compacts spans before a horizon and raises a watermark stuck below it', async () => {
    const s = await reopen();
    await s.confirm(KEY, { from: T, to: T + M });
    await s.confirm(KEY, { from: T + 3 * M, to: T + 4 * M });
    await s.confirm(KEY, { from: T + 6 * M, to: T + 8 * M });
    await s.compact(KEY, T + 2 * M);
    expect(s.confirmed(KEY)).toEqual([
      { from: T + 3 * M, to: T + 4 * M },
      { from: T + 6 * M, to: T + 8 * M },
    ]);
    expect(s.watermark(KEY)).toBe(T + 2 * M);
    await s.compact(KEY, T + 3.5 * M);
    expect(s.watermark(KEY)).toBe(T + 4 * M);
    expect((await reopen()).confirmed(KEY)).toEqual([
      { from: T + 3.5 * M, to: T + 4 * M },
      { from: T + 6 * M, to: T + 8 * M },
    ]);
  });

  it('rejects invalid spans before touching the file', async () => {
    const s = await reopen();
    await expect(s.confirm(KEY, { from: T + M, to: T + M })).rejects.toThrow(ParameterError);
    await expect(s.confirm('', { from: 0, to: M })).rejects.toThrow(/key/);
    expect(await readdir(dir)).toEqual(['state.lock']);
  });

  it('removes stray temp files of a killed writer on open', async () => {
    const s = await reopen();
    await s.confirm(KEY, { from: T, to: T + M });
    await s.close();
    store = undefined;
    await writeFile(join(dir, `${fileNameOf(KEY)}.tmp-99999-3`), '{"half');
    const again = await reopen();
    expect(again.watermark(KEY)).toBe(T + M);
    expect((await readdir(dir)).some((name) => name.includes('.tmp-'))).toBe(false);
  });
});

describe('corrupt checkpoint files', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['truncated JSON', '{"version":1,"key":', /not JSON/],
    ['wrong shape', '{"version":1,"key":"k","watermark":"soon","confirmedAt":null,"spans":[]}', /watermark/],
    [
      'unsorted spans',
      `{"version":1,"key":"k","watermark":null,"confirmedAt":null,"spans":[[${T + 5},${T + 6}],[${T + 1},${T + 2}]]}`,
      /spans\.1/,
    ],
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

  const implausible: Array<[string, string, RegExp]> = [
    [
      'a span reaching far into the future',
      '"watermark":null,"confirmedAt":null,"spans":[[0,8000000000000000]]',
      /spans\.0 start: 1970-01-01/,
    ],
    [
      'a span ending after now (beyond a day of skew)',
      `"watermark":null,"confirmedAt":null,"spans":[[${T},${Date.now() + 2 * DAY}]]`,
      /spans\.0 end: .* in the future/,
    ],
    ['a watermark before 2000', '"watermark":1000,"confirmedAt":null,"spans":[]', /watermark: 1970/],
  ];
  for (const [name, body, problem] of implausible) {
    it(`${name}: refused, naming the file and value, with a copy kept and how to repair`, async () => {
      const path = join(dir, fileNameOf('k'));
      const content = `{"version":1,"key":"k",${body}}`;
      await writeFile(path, content);
      for (let attempt = 0; attempt < 2; attempt++) {
        const err = await CheckpointStore.open(dir).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(CheckpointCorruptError);
        const message = (err as Error).message;
        expect(message).toContain(path);
        expect(message).toMatch(problem);
        expect(message).toMatch(/move it away to start that job from its initial lookback/);
        expect(message).not.toContain('\n');
        const copy = (err as CheckpointCorruptError).copyPath!;
        expect(message).toContain(copy);
        expect(await readFile(copy, 'utf8')).toBe(content);
      }
      // The same damage keeps one copy, however often a restart loop meets it; the file itself is left alone.
      expect((await readdir(dir)).filter((n) => n.includes('.corrupt-'))).toHaveLength(1);
      expect(await readFile(path, 'utf8')).toBe(content);
    });
  }

  it('confirm and compact refuse what loading would refuse: the store never writes a file it cannot read', async () => {
    const s = await reopen();
    await expect(s.confirm(KEY, { from: 0, to: M })).rejects.toThrow(ParameterError);
    await expect(s.confirm(KEY, { from: T, to: NOW + 2 * DAY })).rejects.toThrow(/in the future/);
    await expect(s.compact(KEY, 8e15)).rejects.toThrow(ParameterError);
    expect(await readdir(dir)).toEqual(['state.lock']);
  });

  it('a file under the wrong name is corrupt, not a silent second key', async () => {
    const path = join(dir, fileNameOf('a'));
    await writeFile(path, '{"version":1,"key":"b","watermark":null,"confirmedAt":null,"spans":[]}');
    await expect(CheckpointStore.open(dir)).rejects.toThrow(/belongs in/);
  });
});
