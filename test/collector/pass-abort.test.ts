/**
 * A backfill pass whose signal aborts (Ctrl-C): while the job's previous pass (a live catch-up) still runs, the caller
 * is answered at once instead of after the catch-up, and the pass, still queued behind it, starts no span; passes of
 * the job stay one at a time. During its own pass, the caller is answered at once with what it confirmed so far.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Sink } from '../../src/sink/types.js';
import type { CollectJob } from '../../src/sources/common/types.js';
import { CheckpointStore } from '../../src/state/checkpoints.js';
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { fakeJob, MIN, offlineCollector, T0 } from '../helpers/fake-job.js';

/** A collector of `job` at 4 windows after T0 (the last two due for a live pass), a sink that takes everything. */
async function collectorOf(job: CollectJob) {
  const write = async (points: readonly unknown[]) => ({ written: points.length, rejected: 0 });
  const sink: Sink = { name: 'ok', write, flush: async () => {}, close: async () => {} };
  const clock = new ManualClock(T0 + 4 * MIN);
  const store = await CheckpointStore.open(mkdtempSync(join(tmpdir(), 'pass-abort-')));
  const telemetry = new Telemetry({ clock });
  const horizon = { horizonMs: 60 * MIN, initialLookbackMs: 2 * MIN };
  return { collector: offlineCollector({ jobs: [job], sink, store, telemetry, clock, ...horizon }), store };
}

describe('a backfill pass aborted', () => {
  it('while it waits for the previous pass: resolves at the abort, starts no span once that pass ends', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const read: number[] = [];
    const job = fakeJob(async (i) => {
      read.push(i);
      await held;
      return 1;
    });
    const { collector, store } = await collectorOf(job);
    try {
      const live = collector.tick(); // spans 2 and 3, held at the first
      const cancel = new AbortController();
      const range = { from: T0, to: T0 + 2 * MIN };
      const backfill = collector.runOnce(job, 'backfill', range, undefined, { signal: cancel.signal });
      cancel.abort();
      expect(await backfill).toEqual({ key: job.key, spans: 0, points: 0, setAside: 0 });
      expect(read).toEqual([2]);
      release();
      expect((await live)[0]).toMatchObject({ spans: 2 });
      await collector.settled([job]);
      expect(read).toEqual([2, 3]); // the backfill's spans 0 and 1 were never read
      expect(store.confirmed(job.key)).toEqual([{ from: T0 + 2 * MIN, to: T0 + 4 * MIN }]);
    } finally {
      await store.close();
    }
  });

  it('answers an abort during its own pass at once, with the spans it confirmed so far', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    // Span 1's read is a call in flight: the abort drops queued calls, not one the server is answering.
    const job = fakeJob(async (i) => {
      if (i === 1) await held;
      return 1;
    });
    const { collector, store } = await collectorOf(job);
    try {
      const cancel = new AbortController();
      const range = { from: T0, to: T0 + 3 * MIN };
      let confirmed!: () => void;
      const first = new Promise<void>((resolve) => (confirmed = resolve));
      const backfill = collector.runOnce(job, 'backfill', range, () => confirmed(), { signal: cancel.signal });
      await first;
      cancel.abort();
      expect(await backfill).toEqual({ key: job.key, spans: 1, points: 1, setAside: 0 });
      release();
      await collector.settled([job]);
      expect(store.confirmed(job.key)).toEqual([{ from: T0, to: T0 + 2 * MIN }]); // span 1 was in flight: kept
    } finally {
      await store.close();
    }
  });
});
