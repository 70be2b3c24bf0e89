import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { HAND_OFF_POINTS } from '../../src/paging/walk.js';
import type { Point } from '../../src/points.js';
import type { Sink } from '../../src/sink/types.js';
import type { CollectJob } from '../../src/sources/common/types.js';
import { CheckpointStore } from '../../src/state/checkpoints.js';
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { fakeJob, MIN, offlineCollector, spanIndex, T0 } from '../helpers/fake-job.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/**
 * Memory of a catch-up: a by-resource span of a big account is thousands of points of dozens of fields (~4 KB each).
 * Small spans are read while the previous one is written (latencies overlap); a large one is written before the next
 * span is read, so that two large spans' points are never held at once.
 */
describe('a pass holds one large span at a time', () => {
  async function run(pointsPerSpan: number) {
    const dir = mkdtempSync(join(tmpdir(), 'large-spans-'));
    dirs.push(dir);
    const events: string[] = [];
    const releases: Array<() => void> = [];
    const sink: Sink = {
      name: 'held',
      async write(points: readonly Point[]) {
        events.push(`write ${points[0]!.fields.i}`);
        await new Promise<void>((resolve) => releases.push(resolve));
        events.push(`written ${points[0]!.fields.i}`);
        return { written: points.length, rejected: 0 };
      },
      flush: async () => {},
      close: async () => {},
    };
    const job: CollectJob = {
      ...fakeJob((i) => i),
      async collect(span) {
        const i = spanIndex(span);
        events.push(`read ${i}`);
        return Array.from({ length: pointsPerSpan }, (_, n) => ({
          measurement: 'm',
          tags: { n: String(n) },
          fields: { i },
          time: span.from,
        }));
      },
    };
    const store = await CheckpointStore.open(dir);
    const clock = new ManualClock(T0 + 3 * MIN);
    const collector = offlineCollector({
      jobs: [job],
      sink,
      store,
      telemetry: new Telemetry(),
      clock,
      horizonMs: 60 * MIN,
      initialLookbackMs: 3 * MIN,
      sinkRetryMs: 0,
    });
    const pass = collector.runPass([job], 'live');
    // Let each write go once the pass has gone as far as it will without it.
    for (let written = 0; written < 3; written++) {
      await expect.poll(() => releases.length).toBeGreaterThan(0);
      await new Promise((resolve) => setImmediate(resolve));
      releases.shift()!();
    }
    await pass;
    return { events, confirmed: store.confirmed(job.key) };
  }

  it('a span of a hand-over or more is written before the next is read', async () => {
    const { events, confirmed } = await run(HAND_OFF_POINTS);
    expect(events).toEqual([
      'read 0',
      'write 0',
      'written 0',
      'read 1',
      'write 1',
      'written 1',
      'read 2',
      'write 2',
      'written 2',
    ]);
    expect(confirmed).toEqual([{ from: T0, to: T0 + 3 * MIN }]);
  });

  it('smaller spans are read while the previous one is written', async () => {
    const { events, confirmed } = await run(10);
    expect(events.indexOf('read 1')).toBeLessThan(events.indexOf('written 0'));
    expect(confirmed).toEqual([{ from: T0, to: T0 + 3 * MIN }]);
  });
});
