import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerPaging } from '../../src/paging/server-paging.js';
import { PAGING_FILE, PagingMemory } from '../../src/paging/memory.js';

describe('PagingMemory: the largest page per API across restarts', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'paging-memory-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('saves each new largest page and seeds the next run with it', async () => {
    const state = dir();
    const first = new ServerPaging();
    const memory = await PagingMemory.open(state, first);
    first.observe('statistic', 7);
    first.observe('statistic', 3); // smaller: not a new largest
    first.observe('streamstat', 12);
    first.recordRows('statistic/acme/codes', 7);
    await memory.flush();
    expect(JSON.parse(readFileSync(join(state, PAGING_FILE), 'utf8'))).toEqual({
      version: 1,
      largestPage: { statistic: 7, streamstat: 12 },
      reads: { 'statistic/acme/codes': 7 },
    });

    const restarted = new ServerPaging();
    await PagingMemory.open(state, restarted);
    expect([
      restarted.largestPage('statistic'),
      restarted.largestPage('streamstat'),
      restarted.largestPage('metrics'),
    ]).toEqual([7, 12, 0]);
    expect(restarted.rowsOf('statistic/acme/codes')).toBe(7);
  });

  it('an unreadable file is reported and ignored: paging starts empty, the next growth rewrites it', async () => {
    const state = dir();
    writeFileSync(join(state, PAGING_FILE), '{"version":1,"largestPage":{"statistic":-4}}');
    const problems: string[] = [];
    const paging = new ServerPaging();
    const memory = await PagingMemory.open(state, paging, (p) => problems.push(p));
    expect(problems).toEqual([expect.stringMatching(/^paging\.json ignored/)]);
    expect(paging.largestPage('statistic')).toBe(0);
    paging.observe('statistic', 5);
    await memory.flush();
    expect(JSON.parse(readFileSync(join(state, PAGING_FILE), 'utf8')).largestPage).toEqual({ statistic: 5 });
  });

  it('an unsavable file (a directory in its place, as a full or read-only disk) is reported, not thrown', async () => {
    const state = dir();
    mkdirSync(join(state, PAGING_FILE));
    const problems: string[] = [];
    const paging = new ServerPaging();
    const memory = await PagingMemory.open(state, paging, (p) => problems.push(p));
    paging.observe('streamstat', 7);
    await memory.flush();
    expect(paging.largestPage('streamstat')).toBe(7); // what paging learnt stays in use for this run
    expect(problems.some((p) => /^paging\.json (unreadable|not saved)/.test(p))).toBe(true);
    expect(problems.at(-1)).toMatch(/^paging\.json not saved/);
  });
});
