/**
 * A signal shared by many waiters (a backfill's cancel: every job's passes and every call they queue) carries one
 * abort listener, not one per waiter, and none once they are done: Node warns past ten
 * (MaxListenersExceededWarning, a non-JSON line in a JSON log) and a listener left behind is a leak.
 */
import { getEventListeners } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Sink } from '../../src/sink/types.js';
import { CheckpointStore } from '../../src/state/checkpoints.js';
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { pollingSleeper } from '../../src/limit/sleep.js';
import { fakeJob, MIN, offlineCollector, T0 } from '../helpers/fake-job.js';
import { virtualLimiter } from './helpers.js';

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe('abort listeners on a shared signal', () => {
  it('thirty calls queued for quota on one signal: one listener while they wait, none after', async () => {
    const { vt, limiter } = virtualLimiter({ calls: 1, periodMs: 1000 });
    const cancel = new AbortController();
    const calls = Array.from({ length: 30 }, () =>
      limiter.run(async () => 200, { priority: 'backfill', signal: cancel.signal }),
    );
    expect(listeners(cancel.signal)).toBe(1);
    await vt.run(Promise.all(calls));
    expect(listeners(cancel.signal)).toBe(0);
  });

  it('an abort still reaches every queued call', async () => {
    const { vt, limiter } = virtualLimiter({ calls: 1, periodMs: 1000 });
    const cancel = new AbortController();
    const calls = Array.from({ length: 12 }, () =>
      limiter
        .run(async () => 200, { priority: 'backfill', signal: cancel.signal })
        .then(
          () => 'done',
          () => 'aborted',
        ),
    );
    cancel.abort();
    const outcomes = await vt.run(Promise.all(calls));
    expect(outcomes.filter((o) => o === 'aborted')).toHaveLength(11); // the first had its slot already
    expect(listeners(cancel.signal)).toBe(0);
  });

  it('sleeps on one signal: one listener, none after', async () => {
    const cancel = new AbortController();
    const sleep = pollingSleeper(5);
    const sleeps = Array.from({ length: 20 }, () => sleep(1, cancel.signal));
    expect(listeners(cancel.signal)).toBe(1);
    await Promise.all(sleeps);
    expect(listeners(cancel.signal)).toBe(0);
  });

  it('passes of a backfill on one signal leave no listener once each ended', async () => {
    const job = fakeJob(() => 1);
    const sink: Sink = {
      name: 'ok',
      write: async (p) => ({ written: p.length, rejected: 0 }),
      flush: async () => {},
      close: async () => {},
    };
    const clock = new ManualClock(T0 + 20 * MIN);
    const store = await CheckpointStore.open(mkdtempSync(join(tmpdir(), 'abort-listeners-')));
    const telemetry = new Telemetry({ clock });
    const collector = offlineCollector({
      jobs: [job],
      sink,
      store,
      telemetry,
      clock,
      horizonMs: 60 * MIN,
      initialLookbackMs: 20 * MIN,
    });
    const cancel = new AbortController();
    try {
      for (let i = 0; i < 15; i++) {
        const range = { from: T0 + i * MIN, to: T0 + (i + 1) * MIN };
        expect(await collector.runOnce(job, 'backfill', range, undefined, { signal: cancel.signal })).toMatchObject({
          spans: 1,
        });
      }
      expect(listeners(cancel.signal)).toBe(0);
    } finally {
      await store.close();
    }
  });
});
