import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Point } from '../../src/points.js';
import { SinkError } from '../../src/sink/errors.js';
import type { Sink } from '../../src/sink/types.js';
import type { CollectJob } from '../../src/sources/common/types.js';
import { CheckpointStore } from '../../src/state/checkpoints.js';
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { fakeJob, MIN, offlineCollector, T0 } from '../helpers/fake-job.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A gate a job's collect waits at until the test opens it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

interface SetupOptions {
  held?: number;
  hold?: Promise<void>;
  badSink?: number;
}

/**
 * `n` fake jobs (distinct keys) with `spans` one-minute windows pending each; job `held` (if any) waits at `hold`
 * before collecting; a sink recording every write, failing the writes of job `badSink`.
 */
async function setup(n: number, spans: number, options: SetupOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'run-pass-'));
  dirs.push(dir);
  const writes: string[][] = [];
  const sink: Sink = {
    name: 'recording',
    async write(points: readonly Point[]) {
      writes.push(points.map((p) => `${p.tags.job} ${p.fields.v}`));
      const bad = points.some((p) => p.tags.job === String(options.badSink));
      if (bad) throw new SinkError('recording', 400, false, 'bad request');
      return { written: points.length, rejected: 0 };
    },
    flush: async () => {},
    close: async () => {},
  };
  const jobs: CollectJob[] = Array.from({ length: n }, (_, j) => {
    const base = fakeJob((i) => i);
    return {
      ...base,
      key: `fake/${j}`,
      async collect(span, http) {
        if (j === options.held) await options.hold;
        return (await base.collect(span, http)).map((p) => ({ ...p, tags: { job: String(j) } }));
      },
    };
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
  });
  return { collector, jobs, store, writes };
}

describe("a pass's jobs write and confirm their spans each on its own", () => {
  it("a job that is held up delays none of the others' spans: theirs are confirmed while it waits", async () => {
    const held = gate();
    const { collector, jobs, store } = await setup(3, 2, { held: 0, hold: held.wait });
    const pass = collector.runPass(jobs, 'live');
    for (const job of jobs.slice(1)) {
      await expect.poll(() => store.confirmed(job.key)).toEqual([{ from: T0, to: T0 + 2 * MIN }]);
    }
    expect(store.confirmed(jobs[0]!.key)).toEqual([]);
    held.open();
    expect((await pass).map((r) => r.spans)).toEqual([2, 2, 2]);
  });

  it("a failed write advances no checkpoint of the job it belongs to, and only that job's pass ends", async () => {
    const { collector, jobs, store } = await setup(3, 2, { badSink: 1 });
    const results = await collector.tick();
    expect(results.map((r) => [r.spans, /bad request/.test(r.error ?? '')])).toEqual([
      [2, false],
      [0, true],
      [2, false],
    ]);
    expect(store.confirmed(jobs[1]!.key)).toEqual([]);
    for (const job of [jobs[0]!, jobs[2]!]) expect(store.confirmed(job.key)).toEqual([{ from: T0, to: T0 + 2 * MIN }]);
  });

  it('a job whose pass still runs is left to it: the next pass starts the others, not waiting for it', async () => {
    const held = gate();
    const { collector, jobs, writes } = await setup(2, 2, { held: 0, hold: held.wait });
    const backfill = collector.runOnce(jobs[0]!, 'backfill');
    const live = await collector.runPass(jobs, 'live');
    expect(live.map((r) => [r.key, r.spans])).toEqual([['fake/1', 2]]);
    expect(writes).toEqual([['1 0'], ['1 1']]);
    held.open();
    expect((await backfill).spans).toBe(2);
  });
});
