import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { Limiter } from '../../src/limit/limiter.js';
import { sequence } from '../../src/sim/model/rng.js';
import { maxInSlidingWindow } from '../../src/sim/stats.js';

describe('Limiter on real time (5 calls per 300 ms)', () => {
  it('20 concurrent callers with random latency never put more than 5 arrivals into any 300 ms window', async () => {
    const limiter = new Limiter('streamstat', { calls: 5, periodMs: 300 });
    const random = sequence(2024);
    const arrivals: number[] = [];
    // The "server" counts a call at a random moment between our send and our receipt of the answer.
    const send = async () => {
      await delay(Math.floor(random() * 120));
      arrivals.push(Date.now());
      await delay(Math.floor(random() * 120));
    };
    await Promise.all(Array.from({ length: 20 }, () => limiter.run(send, { priority: 'backfill' })));
    expect(arrivals).toHaveLength(20);
    expect(maxInSlidingWindow(arrivals, 300)).toBeLessThanOrEqual(5);
    await limiter.close();
  });

  it('live calls queued behind backfill calls are sent first', async () => {
    const limiter = new Limiter('statistic', { calls: 2, periodMs: 200 });
    const order: string[] = [];
    const call = (name: string, priority: 'live' | 'backfill') =>
      limiter.run(async () => void order.push(name), { priority });
    const all = [call('b1', 'backfill'), call('b2', 'backfill'), call('b3', 'backfill'), call('b4', 'backfill')];
    all.push(call('l1', 'live'), call('l2', 'live'));
    await Promise.all(all);
    expect(order).toEqual(['b1', 'b2', 'l1', 'l2', 'b3', 'b4']);
  });
});
