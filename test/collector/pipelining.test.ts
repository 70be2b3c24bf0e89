import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { SinkError } from '../../src/sink/errors.js';
import type { Sink } from '../../src/sink/types.js';
import { CheckpointStore } from '../../src/state/checkpoints.js';
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { fakeJob, MIN, offlineCollector, T0 } from '../helpers/fake-job.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A deferred promise the test settles by hand, to order a fetch against a write. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  promise.catch(() => {}); // rejected before the sink awaits it
  return { promise, resolve, reject };
}

/** Resolves once every promise callback that can run has run: nothing here waits on I/O before the gates open. */
const everyPromiseSettled = () => new Promise((resolve) => setImmediate(resolve));

/** The order things happen in: `fetch N` starts, `write N` starts, `write N done`. */
async function setup(writeGates: Array<ReturnType<typeof deferred>>) {
  const dir = mkdtempSync(join(tmpdir(), 'pipelining-'));
  dirs.push(dir);
  const events: string[] = [];
  const job = fakeJob((i) => {
    events.push(`fetch ${i}`);
    return i;
  });
  const sink: Sink = {
    name: 'gated',
    async write(points) {
      const n = points[0]!.fields.v as number;
      events.push(`write ${n}`);
      await writeGates[n]!.promise;
      events.push(`write ${n} done`);
      return { written: points.length, rejected: 0 };
    },
    flush: async () => {},
    close: async () => {},
  };
  const store = await CheckpointStore.open(dir);
  const collector = offlineCollector({
    jobs: [job],
    sink,
    store,
    telemetry: new Telemetry(),
    clock: new ManualClock(T0 + 10 * MIN),
    horizonMs: 60 * MIN,
    initialLookbackMs: 60 * MIN,
    sinkRetryMs: 0,
  });
  return { collector, job, store, events, range: { from: T0, to: T0 + 3 * MIN } };
}

describe('a pass overlaps fetching with writing, in span order', () => {
  it('fetches the next span while the last write is unconfirmed; writes and confirmations keep order', async () => {
    const gates = [deferred(), deferred(), deferred()];
    const { collector, job, store, events, range } = await setup(gates);
    const pass = collector.runOnce(job, 'backfill', range);
    // Span 1 is fetched while span 0 is still being written, but not written before span 0 is confirmed.
    await vi.waitFor(() => expect(events).toEqual(['fetch 0', 'write 0', 'fetch 1']));
    expect(store.confirmed(job.key)).toEqual([]);
    gates[1]!.resolve();
    gates[2]!.resolve();
    await everyPromiseSettled();
    expect(events).toEqual(['fetch 0', 'write 0', 'fetch 1']);
    gates[0]!.resolve();
    const result = await pass;
    expect(events).toEqual([
      'fetch 0',
      'write 0',
      'fetch 1',
      'write 0 done',
      'write 1',
      'fetch 2',
      'write 1 done',
      'write 2',
      'write 2 done',
    ]);
    expect(result).toMatchObject({ spans: 3, points: 3 });
    expect(store.confirmed(job.key)).toEqual([range]);
  });

  it('a failed write ends the pass: its span and the one fetched behind it stay unconfirmed', async () => {
    const gates = [deferred(), deferred(), deferred()];
    const { collector, job, store, events, range } = await setup(gates);
    gates[0]!.resolve();
    gates[1]!.reject(new SinkError('gated', 400, false, 'bad request'));
    gates[2]!.resolve();
    const result = await collector.runOnce(job, 'backfill', range);
    expect(result.spans).toBe(1);
    expect(result.error).toMatch(/bad request/);
    expect(events).not.toContain('write 2');
    expect(store.confirmed(job.key)).toEqual([{ from: T0, to: T0 + MIN }]);
  });
});

describe('runOnce: one pass at a time per job', () => {
  it('an equal request shares the running pass; another range or priority waits, then runs its own', async () => {
    const gates = Array.from({ length: 10 }, () => deferred());
    const { collector, job, store, events, range } = await setup(gates);
    await store.setOrigin(job.key, T0, 60 * MIN); // the daemon's origin: its first window
    const first = collector.runOnce(job, 'backfill', range);
    expect(collector.runOnce(job, 'backfill', { ...range })).toBe(first);
    const other = collector.runOnce(job, 'backfill', { from: T0 + 3 * MIN, to: T0 + 5 * MIN });
    const live = collector.runOnce(job, 'live');
    await vi.waitFor(() => expect(events).toEqual(['fetch 0', 'write 0', 'fetch 1']));
    for (const gate of gates) gate.resolve();
    expect(await first).toMatchObject({ spans: 3 });
    expect(await other).toMatchObject({ spans: 2 });
    // Live: from the daemon's origin to the newest collectable window (10 min), what the two backfills left.
    expect(await live).toMatchObject({ spans: 5 });
    expect(events.filter((e) => e.startsWith('fetch'))).toEqual(Array.from({ length: 10 }, (_, i) => `fetch ${i}`));
  });
});

describe('pending spans as of a time', () => {
  it('counts only windows collectable at the given time: a report on a planned range ignores newer ones', async () => {
    const { collector, job } = await setup([]);
    const range = { from: T0, to: T0 + 10 * MIN };
    expect(collector.pending(job, range)).toHaveLength(10);
    expect(collector.pending(job, range, T0 + 4 * MIN).map((s) => (s.from - T0) / MIN)).toEqual([0, 1, 2, 3]);
  });
});
