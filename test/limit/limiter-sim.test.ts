import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { HttpClient } from '../../src/http/client.js';
import { ApiError, NetworkError } from '../../src/http/errors.js';
import { LimiterSet } from '../../src/limit/limiter-set.js';
import type { LimiterEvent } from '../../src/limit/types.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { maxInSlidingWindow } from '../../src/sim/stats.js';
import { useSimInProcess, simClient } from '../helpers/in-process.js';

const ctx = useSimInProcess({
  quotas: { ...NO_QUOTAS, statistic: { calls: 5, periodMs: 1000 } },
});

/** Statuses the simulator's faults inject; any other answer means the call passed the quota and reached the route. */
const INJECTED = new Set([429, 500, 504]);

function statisticRequest(http: HttpClient) {
  const query = { start: '2024-01-15T10:00:00Z', end: '2024-01-15T11:00:00Z' };
  return http.request({ api: 'statistic', method: 'GET', path: '/app/statistic/v3/', query, schema: z.unknown() });
}

/**
 * One statistics call, to be wrapped by the limiter. Whatever the route answers (200, 4xx, or 501 while it is a
 * placeholder) means the quota admitted the call, so it is returned as a status; injected faults and network errors
 * are thrown for the limiter to retry.
 */
function statisticCall(http: HttpClient): Promise<number> {
  return statisticRequest(http).then(
    (res) => res.status,
    (err: unknown) => {
      if (err instanceof ApiError && !INJECTED.has(err.status)) return err.status;
      throw err;
    },
  );
}

describe('Limiter against the simulator (statistic: 5 calls per 1000 ms)', () => {
  let events: LimiterEvent[];
  let limiters: LimiterSet;
  let http: HttpClient;

  beforeEach(() => {
    const { sim } = ctx;
    sim.stats.reset();
    sim.faults.set('statistic', undefined);
    events = [];
    limiters = new LimiterSet(
      { statistic: { calls: 5, periodMs: 1000 } },
      { backoff: { baseMs: 20, capMs: 100 }, onEvent: (e) => events.push(e) },
    );
    http = simClient(sim, { token: sim.token, timeoutMs: 5000 });
    return async () => {
      await limiters.close();
      await http.close();
    };
  });

  it('12 calls from 20 concurrent callers: no quota rejection, never more than 5 admitted in any second', async () => {
    const { sim } = ctx;
    let remaining = 12;
    const caller = async () => {
      while (remaining > 0) {
        remaining--;
        await limiters.run('statistic', () => statisticCall(http), { priority: 'backfill' });
      }
    };
    await Promise.all(Array.from({ length: 20 }, caller));
    const stats = sim.stats.apis.statistic;
    expect(stats.admittedAt).toHaveLength(12);
    expect(stats.quotaRejections).toBe(0);
    expect(maxInSlidingWindow(stats.admittedAt, 1000)).toBeLessThanOrEqual(5);
  });

  it('honours Retry-After of an injected 429', async () => {
    const { sim } = ctx;
    sim.faults.set('statistic', { script: ['429', 'ok'], retryAfterSec: 1 });
    const attempts: number[] = [];
    await limiters.run('statistic', () => {
      attempts.push(Date.now());
      return statisticCall(http);
    });
    expect(attempts).toHaveLength(2);
    expect(attempts[1]! - attempts[0]!).toBeGreaterThanOrEqual(1000);
    expect(sim.faults.injected.statistic['429']).toBe(1);
    expect(events).toContainEqual({ type: 'throttled', api: 'statistic', attempt: 1, status: 429, waitMs: 1000 });
  });

  it('retries 500, 504 and a connection reset, then succeeds', async () => {
    const { sim } = ctx;
    sim.faults.set('statistic', { script: ['500', '504', 'reset', 'ok'] });
    await limiters.run('statistic', () => statisticCall(http));
    expect(sim.stats.apis.statistic.requests).toBe(4);
    expect(sim.stats.apis.statistic.admittedAt).toHaveLength(1);
    const retries = events.filter((e) => e.type === 'retry');
    expect(retries.map((e) => e.status ?? e.code)).toEqual([500, 504, 'CDN_ERR_NETWORK']);
  });

  it('throws the last typed error when the deadline passes', async () => {
    const { sim } = ctx;
    sim.faults.set('statistic', { rate: 1, kinds: ['reset'] });
    const err = await limiters
      .run('statistic', () => statisticCall(http), { deadlineMs: 300 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(sim.stats.apis.statistic.requests).toBeGreaterThan(1);
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'CDN_ERR_NETWORK' });
  });

  it('through the HttpClient gate, does not retry a non-retryable answer (401: no valid token)', async () => {
    const { sim } = ctx;
    const wrongToken = simClient(sim, { token: 'not-a-token', gate: limiters.gate('live') });
    try {
      const err = await statisticRequest(wrongToken).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(401);
      expect(String(err)).not.toContain('not-a-token');
      expect(sim.stats.apis.statistic.requests).toBe(1);
      expect(events).toContainEqual({
        type: 'error',
        api: 'statistic',
        attempt: 1,
        reason: 'final',
        status: 401,
        code: 'CDN_ERR_API',
      });
      expect(events.filter((e) => e.type === 'retry')).toEqual([]);
    } finally {
      await wrongToken.close();
    }
  });
});
