import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadStateFile, loadStateFileSync, StateFile, type StateFormat } from '../../src/state/json-state.js';

const format: StateFormat<{ counts: number[] }> = {
  version: 2,
  schema: z.object({ counts: z.array(z.number().int()) }).strict(),
  empty: () => ({ counts: [] }),
};

const dirs: string[] = [];
const fileIn = (name = 'state.json') => {
  const dir = mkdtempSync(join(tmpdir(), 'json-state-'));
  dirs.push(dir);
  return join(dir, name);
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

const copiesOf = (path: string) => readdirSync(join(path, '..')).filter((n) => n.includes('.corrupt-'));

describe('one helper for the JSON state files', () => {
  it('a missing file is the empty value, with no problem and nothing written', async () => {
    const path = fileIn();
    expect(await loadStateFile(path, format, { keepCopy: true })).toEqual({ value: { counts: [] } });
    expect(readdirSync(join(path, '..'))).toEqual([]);
  });

  it('a damaged file is a problem naming it, kept as <file>.corrupt-<content hash> (one copy per damage)', async () => {
    const path = fileIn();
    writeFileSync(path, '{"version":2,"counts":["x"]}');
    const loaded = await loadStateFile(path, format, { keepCopy: true });
    expect(loaded.value).toEqual({ counts: [] });
    expect(loaded.problem).toContain(`${path} is unreadable (counts.0: `);
    expect(loaded.copy).toMatch(/\/state\.json\.corrupt-[0-9a-f]{12}$/);
    expect(readFileSync(loaded.copy!, 'utf8')).toBe('{"version":2,"counts":["x"]}');
    expect(loadStateFileSync(path, format, { keepCopy: true }).copy).toBe(loaded.copy);
    expect(copiesOf(path)).toHaveLength(1);
  });

  it('a lock-free reader gets the same problem and writes no copy', async () => {
    const path = fileIn();
    writeFileSync(path, 'not json');
    const loaded = await loadStateFile(path, format);
    expect(loaded.problem).toMatch(/ is unreadable \(not JSON: /);
    expect(loaded.copy).toBeUndefined();
    expect(copiesOf(path)).toEqual([]);
  });

  it('a version newer than this build reads is a problem, not a shape error', async () => {
    const path = fileIn();
    writeFileSync(path, '{"version":3,"counts":[1],"added":true}');
    const loaded = await loadStateFile(path, format, { keepCopy: true });
    expect(loaded.defect).toBe('version: 3 was written by a newer cdn-collector (this one reads 2)');
    expect(loaded.value).toEqual({ counts: [] });
  });

  it('a file written before its format had a version reads as version 1', async () => {
    const v1: StateFormat<{ counts: number[] }> = { ...format, version: 1 };
    const path = fileIn();
    writeFileSync(path, '{"counts":[4]}');
    expect((await loadStateFile(path, v1)).value).toEqual({ counts: [4] });
    expect((await loadStateFile(path, format)).defect).toBe('version: 1 is not a version this build reads');
  });

  it('saves requested while a write is in flight share one next write, which holds the last state', async () => {
    const path = fileIn();
    const state = { counts: [0] };
    const written: string[] = [];
    let release: () => void = () => {};
    const file = new StateFile(path, format, {
      current: () => state,
      durable: true,
      write: async (_path, data) => {
        written.push(data);
        await new Promise<void>((resolve) => (release = resolve));
      },
    });
    const first = file.save();
    await new Promise((resolve) => setImmediate(resolve));
    const later = [1, 2, 3, 4].map((n) => {
      state.counts = [n];
      return file.save();
    });
    release();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await Promise.all(later);
    expect(written).toEqual(['{"version":2,"counts":[0]}\n', '{"version":2,"counts":[4]}\n']);
  });

  it('a failing disk is reported once per streak, and its recovery once', async () => {
    const path = fileIn();
    let full = true;
    const events: string[] = [];
    const file = new StateFile(path, format, {
      current: () => ({ counts: [1] }),
      durable: true,
      write: async () => {
        if (full) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      },
      onFailure: (err) => events.push(`failed: ${(err as Error).message}`),
      onRecovery: () => events.push('recovered'),
    });
    await file.save();
    await file.save();
    expect(file.failing).toBe(true);
    full = false;
    await file.save();
    expect(events).toEqual(['failed: no space left on device', 'recovered']);
  });

  it('writes atomically to the real file: what it saves, it loads back', async () => {
    const path = fileIn();
    await new StateFile(path, format, { current: () => ({ counts: [7, 8] }), durable: true }).save();
    expect(await loadStateFile(path, format)).toEqual({ value: { counts: [7, 8] } });
    expect(readdirSync(join(path, '..'))).toEqual(['state.json']);
  });
});
