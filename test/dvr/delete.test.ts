import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DvrRange } from '../../src/sources/dvr/schemas.js';
import { endOf, rangesOf, recordOf, startDvrFixture, T0, type DvrFixture } from './helpers.js';

// acme/live/main at T0: node-01 and node-03 record (node-01 has breaks), node-02 has DVR disabled.
const ACCOUNT = 'acme';
const STREAM = 'live/main';

let f: DvrFixture;
let before: DvrRange[];
beforeEach(async () => {
  f = await startDvrFixture();
  before = await rangesOf(f, ACCOUNT, STREAM, 'node-01');
  expect(before.length).toBeGreaterThanOrEqual(3);
});
afterEach(() => f.close());

const node1 = () => rangesOf(f, ACCOUNT, STREAM, 'node-01');
const range = (from: number, to: number): DvrRange => ({ from, duration: to - from });

describe('deleting a range, to the second', () => {
  it('the middle of a range splits it in two', async () => {
    const r = before[1]!;
    await f.dvr.deleteRange(ACCOUNT, STREAM, { host: 'node-01', fromTs: r.from + 100, durationSec: 10 });
    expect(await node1()).toEqual([
      before[0],
      range(r.from, r.from + 100),
      range(r.from + 110, endOf(r)),
      ...before.slice(2),
    ]);
  });

  it('the left part of a range moves its start', async () => {
    const r = before[1]!;
    await f.dvr.deleteRange(ACCOUNT, STREAM, { host: 'node-01', fromTs: r.from, toTs: r.from + 60 });
    expect(await node1()).toEqual([before[0], range(r.from + 60, endOf(r)), ...before.slice(2)]);
  });

  it('the right part of a range moves its end', async () => {
    const r = before[1]!;
    await f.dvr.deleteRange(ACCOUNT, STREAM, { host: 'node-01', fromTs: endOf(r) - 1, durationSec: 1 });
    expect(await node1()).toEqual([before[0], range(r.from, endOf(r) - 1), ...before.slice(2)]);
  });

  it('borders may lie outside ranges: from a gap into the next range, across a whole range', async () => {
    const [r0, r1, r2] = [before[0]!, before[1]!, before[2]!];
    // From inside the gap before r1 to 5 s into r2: r1 disappears, r2 loses its first 5 s, r0 stays.
    await f.dvr.deleteRange(ACCOUNT, STREAM, { host: 'node-01', fromTs: endOf(r0) + 1, toTs: r2.from + 5 });
    expect(r1.from).toBeGreaterThan(endOf(r0) + 1);
    expect(await node1()).toEqual([r0, range(r2.from + 5, endOf(r2)), ...before.slice(3)]);
  });

  it('borders before the first recording and after now trim both ends only', async () => {
    const first = before[0]!;
    await f.dvr.deleteRange(ACCOUNT, STREAM, { host: 'node-01', fromTs: 0, toTs: first.from + 30 });
    await f.dvr.deleteRange(ACCOUNT, STREAM, { host: 'node-01', fromTs: T0 - 20, toTs: T0 + 3600 });
    const last = before.at(-1)!;
    expect(await node1()).toEqual([
      range(first.from + 30, endOf(first)),
      ...before.slice(1, -1),
      range(last.from, T0 - 20),
    ]);
  });

  it('a cut inside a break changes nothing; the totals follow every deletion', async () => {
    await f.dvr.deleteRange(ACCOUNT, STREAM, { host: 'node-01', fromTs: endOf(before[0]!), toTs: before[1]!.from });
    expect(await node1()).toEqual(before);
    await f.dvr.deleteRange(ACCOUNT, STREAM, { host: 'node-01', fromTs: before[1]!.from + 7, durationSec: 13 });
    const { dvr } = recordOf((await f.dvr.get(ACCOUNT, STREAM)).data, 'node-01');
    expect(dvr.duration).toBe(before.reduce((s, r) => s + r.duration, 0) - 13);
    expect(dvr.ranges).toHaveLength(before.length + 1);
  });

  it('echoes the body parameters that were sent', async () => {
    const byDuration = await f.dvr.deleteRange(ACCOUNT, STREAM, { host: 'node-01', fromTs: T0 - 50, durationSec: 5 });
    expect(byDuration).toEqual({
      status: 'Completed',
      stream_name: STREAM,
      host: 'node-01',
      from_ts: T0 - 50,
      duration_sec: 5,
    });
    const byTo = await f.dvr.deleteRange(ACCOUNT, STREAM, { host: '*', fromTs: T0 - 40, toTs: T0 - 30 });
    expect(byTo).toEqual({ status: 'Completed', stream_name: STREAM, host: '*', from_ts: T0 - 40, to_ts: T0 - 30 });
  });

  it('what is deleted beyond now is recorded later as usual', async () => {
    await f.dvr.deleteRange(ACCOUNT, STREAM, { host: 'node-01', fromTs: T0 - 10, toTs: T0 + 60 });
    f.clock.advance(60_000);
    const last = before.at(-1)!;
    expect((await node1()).slice(-2)).toEqual([range(last.from, T0 - 10), range(T0, T0 + 60)]);
  });
});

describe('host selection', () => {
  it('one node changes only that node', async () => {
    const node3 = await rangesOf(f, ACCOUNT, STREAM, 'node-03');
    await f.dvr.deleteRange(ACCOUNT, STREAM, { host: 'node-03', fromTs: T0 - 120, toTs: T0 - 60 });
    expect(await node1()).toEqual(before);
    expect(await rangesOf(f, ACCOUNT, STREAM, 'node-03')).toEqual([
      ...node3.slice(0, -1),
      range(node3.at(-1)!.from, T0 - 120),
      range(T0 - 60, T0),
    ]);
  });

  it('* changes every node', async () => {
    await f.dvr.deleteRange(ACCOUNT, STREAM, { host: '*', fromTs: T0 - 120, toTs: T0 });
    for (const node of ['node-01', 'node-03']) {
      expect(endOf((await rangesOf(f, ACCOUNT, STREAM, node)).at(-1)!)).toBe(T0 - 120);
    }
  });
});

describe('deleting all', () => {
  it('empties the ranges, then an alive stream accumulates again from the deletion time', async () => {
    const done = await f.dvr.deleteAll(ACCOUNT, STREAM, { host: '*' });
    expect(done).toEqual({ status: 'Completed', stream_name: STREAM, host: '*', all: true });
    for (const record of (await f.dvr.get(ACCOUNT, STREAM)).data) {
      expect(record.dvr).toMatchObject({ ranges: [], duration: 0 });
    }
    f.clock.advance(90_000);
    expect(await node1()).toEqual([range(T0, T0 + 90)]);
    expect(await rangesOf(f, ACCOUNT, STREAM, 'node-03')).toEqual([range(T0, T0 + 90)]);
  });

  it('on one node leaves the others', async () => {
    const node3 = await rangesOf(f, ACCOUNT, STREAM, 'node-03');
    await f.dvr.deleteAll(ACCOUNT, STREAM, { host: 'node-01' });
    expect(await node1()).toEqual([]);
    expect(await rangesOf(f, ACCOUNT, STREAM, 'node-03')).toEqual(node3);
  });

  it('a stopped stream stays empty', async () => {
    const fx = await startDvrFixture({ world: { streamsPerAccount: 6 } });
    try {
      await fx.dvr.deleteAll(ACCOUNT, 'news', { host: '*' });
      fx.clock.advance(600_000);
      const body = await fx.dvr.get(ACCOUNT, 'news');
      for (const record of body.data) {
        expect(record.is_alive).toBe(false);
        expect(record.dvr.ranges).toEqual([]);
      }
    } finally {
      await fx.close();
    }
  });
});
