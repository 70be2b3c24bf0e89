import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Point } from '../../src/points.js';
import { SinkError } from '../../src/sink/errors.js';
import type { Sink } from '../../src/sink/types.js';
import type { CollectJob } from '../../src/sources/types.js';
import { CheckpointStore } from '../../src/state/checkpoints.js';
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { fakeJob, MIN, offlineCollector, T0 } from '../helpers/fake-job.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** `n` fake jobs (distinct keys) with `spans` one-minute windows pending each, a sink recording every write. */
async function setup(n: number, spans: number, options: { failWrite?: number; maxPoints?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'pass-writes-'));
  dirs.push(dir);
  const writes: string[][] = [];
  const sink: Sink = {
    name: 'recording',
    async write(points: readonly Point[]) {
      writes.push(points.map((p) => `${p.tags.job} ${p.fields.v}`));
      if (writes.length === options.failWrite) throw new SinkError('recording', 400, false, 'bad request');
      return { written: points.length, rejected: 0 };
    },
    flush: async () => {},
    close: async () => {},
  };
  const jobs: CollectJob[] = Array.from({ length: n }, (_, j) => {
    const base = fakeJob((i) => i);
    return { ...base, key: `fake/${j}`, collect: async (span, http) => (await base.collect(span, http)).map((p) => ({ ...p, tags: { job: String(j) } })) };
  });
  const store = await CheckpointStore.open(dir);
  const collector = offlineCollector({
    jobs,
    sink,
    store,
    telemetry: new Telemetry(),
    clock: new ManualClock(T0 + spans * MIN),
    horizonMs: 60 * MIN,
    initialLookbackMs: spans * MIN,
    sinkRetryMs: 0,
    passWriteMaxPoints: options.maxPoints,
  });
  return { collector, jobs, store, writes };
}

describe("a pass's jobs share one sink write per round of spans", () => {
  it('three jobs of two spans each: two writes of three jobs’ points, every span confirmed', async () => {
    const { collector, jobs, store, writes } = await setup(3, 2);
    const results = await collector.tick();
    expect(writes.map((w) => [...w].sort())).toEqual([
      ['0 0', '1 0', '2 0'],
      ['0 1', '1 1', '2 1'],
    ]);
    expect(results.map((r) => r.spans)).toEqual([2, 2, 2]);
    for (const job of jobs) expect(store.confirmed(job.key)).toEqual([{ from: T0, to: T0 + 2 * MIN }]);
  });

  it('a failed write advances no checkpoint of any job it carried, and ends their passes', async () => {
    const { collector, jobs, store, writes } = await setup(3, 2, { failWrite: 1 });
    const results = await collector.tick();
    expect(writes).toHaveLength(1);
    expect(results.every((r) => r.spans === 0 && /bad request/.test(r.error ?? ''))).toBe(true);
    for (const job of jobs) expect(store.confirmed(job.key)).toEqual([]);
  });

  it('the write goes out once maxPoints wait, without waiting for the other jobs (bounded memory)', async () => {
    const { collector, writes } = await setup(3, 2, { maxPoints: 1 });
    await collector.tick();
    expect(writes.map((w) => w.length)).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it('a job whose backfill still runs is not waited for: the other jobs write without it', async () => {
    const { collector, jobs, writes } = await setup(2, 2);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = jobs[0]!;
    const collect = slow.collect;
    slow.collect = async (span, http) => {
      await gate;
      return collect(span, http);
    };
    const backfill = collector.runOnce(slow, 'backfill');
    const live = collector.runPass(jobs, 'live');
    // Job 1's two spans are written while job 0's backfill is held: job 1 is not grouped with it.
    await expect.poll(() => writes.length).toBe(2);
    expect(writes).toEqual([['1 0'], ['1 1']]);
    release();
    await Promise.all([backfill, live]);
  });
});
