import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/http/retry-after.js';
import { apiError, scriptedSend, virtualLimiter } from '../limit/helpers.js';

const QUOTA = { calls: 5, periodMs: 60_000 };
const MINUTE = 60_000;

describe('hostile Retry-After', () => {
  it('Retry-After: 999999999 holds the API for at most api.maxRetryAfter, and the cap is reported', async () => {
    const { vt, limiter, events } = virtualLimiter(QUOTA, { maxRetryAfterMs: 2 * MINUTE, deadlineMs: 10 * MINUTE });
    const start = vt.now();
    const { attempts, send } = scriptedSend(vt, [apiError(429, 999_999_999)]);
    await vt.run(limiter.run(send));
    expect(attempts).toHaveLength(2);
    expect(attempts[1]! - start).toBeLessThanOrEqual(2 * MINUTE);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'retry-after-capped',
        status: 429,
        waitMs: 2 * MINUTE,
        requestedMs: 999_999_999_000,
      }),
    );
  });

  it('by default (5 minutes) a call that gives up on it does not stop later calls until restart', async () => {
    const { vt, limiter } = virtualLimiter(QUOTA);
    await expect(vt.run(limiter.run(scriptedSend(vt, [apiError(429, 999_999_999)]).send))).rejects.toMatchObject({
      status: 429,
    });
    const start = vt.now();
    const later = scriptedSend(vt, []);
    await vt.run(limiter.run(later.send, { deadlineMs: 10 * MINUTE }));
    expect(later.attempts[0]! - start).toBeLessThanOrEqual(5 * MINUTE);
  });

  it('an HTTP-date far in the future is capped the same way', async () => {
    const now = Date.parse('2024-03-01T12:00:00Z');
    const retryAfterSec = parseRetryAfter(new Date(now + 365 * 86_400_000).toUTCString(), now);
    expect(retryAfterSec).toBeGreaterThan(364 * 86_400);
    const { vt, limiter, events } = virtualLimiter(QUOTA, { deadlineMs: 10 * MINUTE });
    const { attempts, send } = scriptedSend(vt, [apiError(429, retryAfterSec)]);
    const start = vt.now();
    await vt.run(limiter.run(send));
    expect(attempts[1]! - start).toBeLessThanOrEqual(5 * MINUTE);
    expect(events.some((e) => e.type === 'retry-after-capped')).toBe(true);
  });

  it.each(['-5', '-1', '1e9', 'soon', '12abc', ''])('a garbage value (%j) is ignored, not read as a date', (value) => {
    expect(parseRetryAfter(value, 0)).toBeUndefined();
  });

  it('a negative or non-finite value that reaches the limiter counts as absent', async () => {
    const firstRetryAfter = async (retryAfterSec: number | undefined) => {
      const { vt, limiter } = virtualLimiter(QUOTA, { deadlineMs: 10 * MINUTE });
      const { attempts, send } = scriptedSend(vt, [apiError(429, retryAfterSec)]);
      await vt.run(limiter.run(send));
      return attempts[1]! - attempts[0]!;
    };
    // Without a usable Retry-After a 429 holds the API for one quota period.
    const absent = await firstRetryAfter(undefined);
    for (const bad of [-5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(await firstRetryAfter(bad), String(bad)).toBe(absent);
  });

  it('valid values still parse: seconds and an HTTP-date, which is measured from the `now` given', () => {
    const now = Date.parse('2024-03-01T12:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter(new Date(now + 90_000).toUTCString(), now)).toBe(90);
    expect(parseRetryAfter(new Date(now - 1000).toUTCString(), now)).toBe(0);
  });
});
