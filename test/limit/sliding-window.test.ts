import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.js';
import { SlidingWindow } from '../../src/limit/sliding-window.js';

describe('SlidingWindow', () => {
  it('allows N calls in flight, then waits for a completion', () => {
    const w = new SlidingWindow({ calls: 2, periodMs: 1000 }, 0);
    w.acquire(0);
    w.acquire(0);
    expect(w.canSend(0)).toBe(false);
    expect(w.nextSendAt(0)).toBe(Number.POSITIVE_INFINITY);
  });

  it('frees a slot exactly one period (+ margin) after a completion, not after the send', () => {
    const w = new SlidingWindow({ calls: 2, periodMs: 1000 }, 50);
    w.acquire(0);
    w.acquire(0);
    w.release(300); // a slow call: the server may have counted it as late as 300
    w.release(400);
    expect(w.nextSendAt(500)).toBe(1350);
    expect(w.canSend(1349)).toBe(false);
    expect(w.canSend(1350)).toBe(true);
    w.acquire(1350);
    expect(w.nextSendAt(1350)).toBe(1450);
  });

  it('counts in-flight and completed calls together', () => {
    const w = new SlidingWindow({ calls: 3, periodMs: 1000 }, 0);
    w.acquire(0);
    w.acquire(0);
    w.release(100);
    w.acquire(100); // 1 completed + 2 in flight = 3
    expect(w.canSend(150)).toBe(false);
    w.release(200); // 2 completed + 1 in flight
    expect(w.nextSendAt(200)).toBe(1100);
  });

  it('keeps only N completion times (bounded memory)', () => {
    const w = new SlidingWindow({ calls: 4, periodMs: 10 }, 0);
    for (let t = 0; t < 10_000; t += 10) {
      w.acquire(t);
      w.release(t + 1);
    }
    expect(w.retained).toBe(4);
  });

  it('blocks every send until the block ends', () => {
    const w = new SlidingWindow({ calls: 5, periodMs: 1000 }, 0);
    w.blockUntil(2000);
    expect(w.nextSendAt(0)).toBe(2000);
    w.blockUntil(1500); // an earlier block never shortens the current one
    expect(w.canSend(1999)).toBe(false);
    expect(w.canSend(2000)).toBe(true);
  });

  it('without a quota only the concurrency cap applies', () => {
    const w = new SlidingWindow(null, 0, 2);
    w.acquire(0);
    w.acquire(0);
    expect(w.canSend(0)).toBe(false);
    w.release(1);
    expect(w.canSend(1)).toBe(true);
    expect(w.retained).toBe(0);
  });

  it('rejects nonsense quotas, naming the field', () => {
    expect(() => new SlidingWindow({ calls: 0, periodMs: 1000 })).toThrow(ParameterError);
    expect(() => new SlidingWindow({ calls: 0, periodMs: 1000 })).toThrow(/quota\.calls/);
    expect(() => new SlidingWindow({ calls: 1, periodMs: 0 })).toThrow(/quota\.periodMs/);
    expect(() => new SlidingWindow(null, -1)).toThrow(/marginMs/);
  });
});
