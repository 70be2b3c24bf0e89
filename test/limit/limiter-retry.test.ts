import { describe, expect, it } from 'vitest';
import { ApiError, NetworkError, TimeoutError } from '../../src/http/errors.js';
import { ParameterError } from '../../src/errors.js';
import { LimiterDeadlineError } from '../../src/limit/errors.js';
import { Limiter } from '../../src/limit/limiter.js';
import { apiError, scriptedSend, virtualLimiter } from './helpers.js';
import { VirtualTime } from './virtual-time.js';

const request = { api: 'statistic' as const, method: 'GET', url: 'http://sim.test/' };

describe('Limiter retries (virtual time)', () => {
  it('retries 500, 504, resets and timeouts with full-jitter backoff, then succeeds', async () => {
    const { vt, limiter, events } = virtualLimiter({ calls: 100, periodMs: 1000 }, { marginMs: 0 });
    const failures = [
      apiError(500),
      apiError(504),
      new NetworkError(request, 'ECONNRESET'),
      new TimeoutError(request, 10),
    ];
    const { attempts, send } = scriptedSend(vt, failures);
    await expect(vt.run(limiter.run(send))).resolves.toEqual({ status: 200 });
    expect(attempts).toHaveLength(5);
    // random = 0.5, base 100 doubling, cap 1000: waits of 50, 100, 200, 400.
    expect(attempts.slice(1).map((t, i) => t - attempts[i]!)).toEqual([50, 100, 200, 400]);
    const retries = events.filter((e) => e.type === 'retry');
    expect(retries.map((e) => [e.attempt, e.status, e.code, e.waitMs])).toEqual([
      [1, 500, 'CDN_ERR_API', 50],
      [2, 504, 'CDN_ERR_API', 100],
      [3, undefined, 'CDN_ERR_NETWORK', 200],
      [4, undefined, 'CDN_ERR_TIMEOUT', 400],
    ]);
    expect(events.filter((e) => e.type === 'call').map((e) => e.status)).toEqual([500, 504, undefined, undefined, 200]);
    expect(events.some((e) => e.type === 'error')).toBe(false);
  });

  it('caps the backoff', async () => {
    const { vt, limiter } = virtualLimiter(null, { random: () => 0.999 });
    const { attempts, send } = scriptedSend(
      vt,
      Array.from({ length: 8 }, () => apiError(503)),
    );
    await vt.run(limiter.run(send));
    const waits = attempts.slice(1).map((t, i) => t - attempts[i]!);
    expect(Math.max(...waits)).toBe(999);
  });

  it('every attempt takes a quota slot (a 5xx reached the server)', async () => {
    const { vt, limiter } = virtualLimiter({ calls: 2, periodMs: 10_000 }, { marginMs: 0 });
    const { attempts, send } = scriptedSend(vt, [apiError(500), apiError(500)]);
    await vt.run(limiter.run(send));
    // Two failed attempts filled the window: the third waits a period after the first.
    expect(attempts[2]! - attempts[0]!).toBe(10_000);
  });

  it('does not retry a non-retryable error', async () => {
    for (const failure of [apiError(400), apiError(403), new ParameterError('start', 'bad')]) {
      const { vt, limiter, events } = virtualLimiter(null);
      const { attempts, send } = scriptedSend(vt, [failure]);
      await expect(vt.run(limiter.run(send))).rejects.toBe(failure);
      expect(attempts).toHaveLength(1);
      expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
    }
  });

  it('throws the last typed error once the deadline is reached', async () => {
    const { vt, limiter, events } = virtualLimiter(null, { backoff: { baseMs: 1000, capMs: 1000 }, random: () => 1 });
    const failures = [apiError(500), apiError(502), apiError(503), apiError(504), apiError(500)];
    const { attempts, send } = scriptedSend(vt, failures);
    const start = vt.now();
    const err = await vt.run(limiter.run(send, { deadlineMs: 3500 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(504);
    expect(attempts).toHaveLength(4); // at 0, 1000, 2000, 3000; a 5th would start after the deadline
    expect(vt.now() - start).toBeLessThan(3500);
    expect(events.at(-1)).toMatchObject({ type: 'error', attempt: 4, status: 504 });
  });

  it('a call that cannot get a slot before its deadline fails with LimiterDeadlineError', async () => {
    const { vt, limiter } = virtualLimiter({ calls: 1, periodMs: 60_000 });
    const first = limiter.run(async () => 1);
    const second = limiter.run(async () => 2, { deadlineMs: 5000 });
    const [a, b] = await vt.run(Promise.allSettled([first, second]));
    expect(a).toEqual({ status: 'fulfilled', value: 1 });
    expect(b.status === 'rejected' && b.reason).toBeInstanceOf(LimiterDeadlineError);
    expect(limiter.snapshot().queued).toBe(0);
  });

  it('a late wake serves a call whose slot was free before its deadline, and expires one whose was not', async () => {
    // Every wake of the limiter fires 3 s late, as on an event loop blocked for that long.
    const late = (vt: VirtualTime) => (ms: number, signal?: AbortSignal) => vt.sleep(ms + 3000, signal);
    const vt = new VirtualTime();
    const served = new Limiter('statistic', { calls: 1, periodMs: 1000 }, { clock: vt, sleep: late(vt), marginMs: 0 });
    const calls = [served.run(async () => 1), served.run(async () => 2, { deadlineMs: 2000 })];
    // The slot was free again at 1000, before the deadline at 2000; the wake came at 4000.
    await expect(vt.run(Promise.all(calls))).resolves.toEqual([1, 2]);

    const refused = new Limiter('statistic', { calls: 1, periodMs: 5000 }, { clock: vt, sleep: late(vt), marginMs: 0 });
    await expect(refused.run(async () => 1)).resolves.toBe(1);
    // Free again only 5 s after the first call: after the deadline, whenever the wake came.
    const second = vt.run(refused.run(async () => 2, { deadlineMs: 2000 }));
    await expect(second).rejects.toBeInstanceOf(LimiterDeadlineError);
    expect(refused.snapshot().queued).toBe(0);
  });

  it('a retry waiting in line keeps the deadline: the last API error is thrown, not a deadline error', async () => {
    const { vt, limiter } = virtualLimiter({ calls: 1, periodMs: 60_000 }, { marginMs: 0 });
    const { send } = scriptedSend(vt, [apiError(502)]);
    const err = await vt.run(limiter.run(send, { deadlineMs: 10_000 })).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(502);
  });
});

describe('Limiter and 429 (virtual time)', () => {
  it('waits at least Retry-After, and holds every call of the API until then', async () => {
    const { vt, limiter, events } = virtualLimiter({ calls: 10, periodMs: 1000 }, { marginMs: 0 });
    const { attempts, send } = scriptedSend(vt, [apiError(429, 7)]);
    const limited = limiter.run(send);
    await vt.settle(); // the first attempt got its 429
    const otherSentAt: number[] = [];
    const other = limiter.run(async () => otherSentAt.push(vt.now()));
    await vt.run(Promise.all([limited, other]));
    expect(attempts[1]! - attempts[0]!).toBeGreaterThanOrEqual(7000);
    expect(otherSentAt[0]! - attempts[0]!).toBeGreaterThanOrEqual(7000);
    expect(events).toContainEqual({ type: 'throttled', api: 'statistic', attempt: 1, status: 429, waitMs: 7000 });
  });

  it('without Retry-After, treats a whole period as full', async () => {
    const { vt, limiter } = virtualLimiter({ calls: 10, periodMs: 30_000 }, { marginMs: 0 });
    const { attempts, send } = scriptedSend(vt, [apiError(429)]);
    await vt.run(limiter.run(send));
    expect(attempts[1]! - attempts[0]!).toBe(30_000);
  });

  it('honours Retry-After of a 503 without blocking other calls', async () => {
    const { vt, limiter } = virtualLimiter({ calls: 10, periodMs: 1000 }, { marginMs: 0 });
    const { attempts, send } = scriptedSend(vt, [apiError(503, 3)]);
    const limited = limiter.run(send);
    await vt.settle();
    const otherSentAt: number[] = [];
    await vt.run(Promise.all([limited, limiter.run(async () => otherSentAt.push(vt.now()))]));
    expect(attempts[1]! - attempts[0]!).toBe(3000);
    expect(otherSentAt[0]).toBe(attempts[0]);
  });

  it('gives up at once when Retry-After reaches beyond the deadline', async () => {
    const { vt, limiter } = virtualLimiter(null);
    const { attempts, send } = scriptedSend(vt, [apiError(429, 600)]);
    const err = await vt.run(limiter.run(send, { deadlineMs: 60_000 })).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(429);
    expect(attempts).toHaveLength(1);
  });
});
