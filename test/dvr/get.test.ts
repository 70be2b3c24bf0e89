import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endOf, recordOf, startDvrFixture, T0, type DvrFixture } from './helpers.js';

let f: DvrFixture;
beforeAll(async () => {
  f = await startDvrFixture({ world: { streamsPerAccount: 6 } });
});
afterAll(() => f.close());

describe('DVR get', () => {
  it('lists the DVR streams, one of them with a slash in its name', () => {
    expect(f.sim.streams).toContainEqual({ account: 'acme', stream: 'live/main' });
  });

  it('returns one record per node for a stream whose name contains a slash, echoing stream_name', async () => {
    const body = await f.dvr.get('acme', 'live/main');
    expect(body.status).toBe('Completed');
    expect(body.stream_name).toBe('live/main');
    expect(body.data.map((r) => r.host)).toEqual(f.sim.world.nodes);
    for (const record of body.data) expect(record.stream_name).toBe('live/main');
  });

  it(
    'reports window, duration = sum of ranges and from = first range start, ' + 'ranges sorted within the window',
    async () => {
      for (const { account, stream } of f.sim.streams) {
        const body = await f.dvr.get(account, stream);
        for (const { dvr } of body.data) {
          expect(dvr.window).toBe(f.sim.settings.dvrWindowSec);
          expect(dvr.duration).toBe(dvr.ranges.reduce((sum, r) => sum + r.duration, 0));
          if (dvr.ranges.length > 0) expect(dvr.from).toBe(dvr.ranges[0]!.from);
          dvr.ranges.forEach((r, i) => {
            expect(r.duration).toBeGreaterThan(0);
            expect(r.from).toBeGreaterThanOrEqual(T0 - dvr.window);
            expect(endOf(r)).toBeLessThanOrEqual(T0);
            if (i > 0) expect(r.from).toBeGreaterThan(endOf(dvr.ranges[i - 1]!));
          });
        }
      }
    },
  );

  it('has alive and stopped streams, and nodes with DVR disabled that record nothing', async () => {
    const records = (await Promise.all(f.sim.streams.map((s) => f.dvr.get(s.account, s.stream)))).flatMap(
      (b) => b.data,
    );
    const alive = records.filter((r) => r.is_alive && r.dvr.enabled);
    const stopped = records.filter((r) => !r.is_alive && r.dvr.enabled);
    const disabled = records.filter((r) => !r.dvr.enabled);
    expect(alive.length).toBeGreaterThan(0);
    expect(stopped.length).toBeGreaterThan(0);
    expect(disabled.length).toBeGreaterThan(0);
    // An alive stream records up to now; a stopped one stopped before.
    for (const r of alive) expect(endOf(r.dvr.ranges.at(-1)!)).toBe(T0);
    for (const r of stopped) expect(endOf(r.dvr.ranges.at(-1)!)).toBeLessThan(T0);
    for (const r of disabled) expect(r.dvr).toMatchObject({ ranges: [], duration: 0, from: 0 });
  });

  it('records breaks: some node has more than one range', async () => {
    const body = await f.dvr.get('acme', 'live/main');
    expect(recordOf(body.data, 'node-01').dvr.ranges.length).toBeGreaterThan(1);
  });
});

describe('DVR over time', () => {
  it('an alive stream grows with the clock; a stopped one does not', async () => {
    const fx = await startDvrFixture({ world: { streamsPerAccount: 6 } });
    try {
      const aliveBefore = recordOf((await fx.dvr.get('acme', 'live/main')).data, 'node-01').dvr;
      const stoppedBefore = recordOf((await fx.dvr.get('acme', 'news')).data, 'node-01');
      expect(stoppedBefore.is_alive).toBe(false);
      fx.clock.advance(120_000);
      const aliveAfter = recordOf((await fx.dvr.get('acme', 'live/main')).data, 'node-01').dvr;
      const stoppedAfter = recordOf((await fx.dvr.get('acme', 'news')).data, 'node-01').dvr;
      expect(aliveAfter.duration).toBe(aliveBefore.duration + 120);
      expect(endOf(aliveAfter.ranges.at(-1)!)).toBe(T0 + 120);
      expect(stoppedAfter.ranges).toEqual(stoppedBefore.dvr.ranges);
    } finally {
      await fx.close();
    }
  });

  it('drops what is older than the window, to the second', async () => {
    const fx = await startDvrFixture({ settings: { dvrWindowSec: 3600 } });
    try {
      const { dvr } = recordOf((await fx.dvr.get('acme', 'live/main')).data, 'node-01');
      expect(dvr.window).toBe(3600);
      expect(dvr.ranges[0]!.from).toBeGreaterThanOrEqual(T0 - 3600);
      expect(dvr.duration).toBeLessThanOrEqual(3600);
      fx.sim.settings.dvrWindowSec = 600;
      const narrowed = recordOf((await fx.dvr.get('acme', 'live/main')).data, 'node-01').dvr;
      // The last ten minutes of an alive stream are one gap-free range (breaks start at minute 10 or later).
      expect(narrowed.ranges).toEqual([{ from: T0 - 600, duration: 600 }]);
    } finally {
      await fx.close();
    }
  });
});
