import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateDuration } from '../../src/plan/planner.js';
import { maxInSlidingWindow } from '../../src/sim/stats.js';
import { fakeServer, virtualLimiter } from './helpers.js';

describe('Limiter quota (virtual time)', () => {
  it('20 concurrent callers never put more than N arrivals into any sliding window, whatever the latency', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom(100, 300, 1000),
        fc.integer({ min: 0, max: 2500 }),
        fc.integer(),
        async (calls, periodMs, maxLatencyMs, seed) => {
          // No margin: the guarantee must not depend on it when both sides share a clock.
          const { vt, limiter } = virtualLimiter({ calls, periodMs }, { marginMs: 0 });
          const server = fakeServer(vt, seed, maxLatencyMs);
          const callers = Array.from({ length: 20 }, async () => {
            for (let i = 0; i < 3; i++) await limiter.run(server.send);
          });
          await vt.run(Promise.all(callers));
          expect(server.arrivals).toHaveLength(60);
          expect(maxInSlidingWindow(server.arrivals, periodMs)).toBeLessThanOrEqual(calls);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('the check above can fail: the same callers without the limiter overrun the window', async () => {
    const { vt } = virtualLimiter(null);
    const server = fakeServer(vt, 7, 200);
    await vt.run(Promise.all(Array.from({ length: 20 }, () => server.send())));
    expect(maxInSlidingWindow(server.arrivals, 300)).toBeGreaterThan(5);
  });

  it('wastes no time: with instant calls, k calls take exactly (⌈k/N⌉ − 1) periods plus margins', async () => {
    const { vt, limiter } = virtualLimiter({ calls: 5, periodMs: 60_000 }, { marginMs: 50 });
    const start = vt.now();
    await vt.run(Promise.all(Array.from({ length: 23 }, () => limiter.run(async () => 'ok'))));
    expect(vt.now() - start).toBe(estimateDuration(23, { calls: 5, periodMs: 60_000 }) + 4 * 50);
  });

  it('a slot is held while the call is in flight', async () => {
    const { vt, limiter } = virtualLimiter({ calls: 1, periodMs: 100 }, { marginMs: 0 });
    const sent: number[] = [];
    const slow = async () => {
      sent.push(vt.now());
      await vt.sleep(1000);
    };
    await vt.run(Promise.all([limiter.run(slow), limiter.run(slow)]));
    // The second call waits for the first to complete (t = 1000) and then a full period.
    expect(sent[1]! - sent[0]!).toBe(1100);
  });

  it('keeps only N completion times however many calls pass', async () => {
    const { vt, limiter } = virtualLimiter({ calls: 3, periodMs: 10 });
    await vt.run(Promise.all(Array.from({ length: 500 }, () => limiter.run(async () => 1))));
    expect(limiter.snapshot()).toMatchObject({ queued: 0, inFlight: 0, retainedCompletions: 3 });
  });

  it('reports how long a call waited for its slot', async () => {
    const { vt, limiter, events } = virtualLimiter({ calls: 1, periodMs: 1000 }, { marginMs: 0 });
    await vt.run(Promise.all([limiter.run(async () => 1), limiter.run(async () => 2)]));
    expect(events.filter((e) => e.type === 'throttled')).toEqual([
      { type: 'throttled', api: 'statistic', attempt: 1, waitMs: 1000 },
    ]);
    expect(events.filter((e) => e.type === 'call')).toHaveLength(2);
  });

  it('without a quota calls go at once, but a concurrency cap still applies', async () => {
    const { vt, limiter } = virtualLimiter(null, { maxConcurrent: 2 });
    let inFlight = 0;
    let peak = 0;
    const send = async () => {
      peak = Math.max(peak, ++inFlight);
      await vt.sleep(10);
      inFlight--;
    };
    await vt.run(Promise.all(Array.from({ length: 9 }, () => limiter.run(send))));
    expect(peak).toBe(2);
  });
});
