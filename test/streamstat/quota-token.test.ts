import { describe, expect, it } from 'vitest';
import { isRetryable } from '../../src/failure.js';
import { ApiError } from '../../src/http/errors.js';
import { clientFor, newClock, WINDOW } from './helpers.js';
import { useSimInProcess } from '../helpers/in-process.js';

const clock = newClock();
// A short quota period keeps the test quick; the rule (30 calls per period) is the spec's.
const ctx = useSimInProcess({ clock, quotas: { streamstat: { calls: 30, periodMs: 10_000 } } });

describe('streamstat quota and token placement', () => {
  it('the token works in the query and in the header, and never shows in errors', async () => {
    const inQuery = await clientFor(ctx.sim, 'query').total(WINDOW);
    const inHeader = await clientFor(ctx.sim, 'header').total(WINDOW);
    expect(inHeader).toEqual(inQuery);
    const err = await clientFor(ctx.sim, 'query')
      .total({ ...WINDOW, account: 'not-ours' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(401);
    expect((err as ApiError).description).toBe('account');
    expect((err as ApiError).message).not.toContain(ctx.sim.token);
    expect((err as ApiError).request.url).toContain('cdnauthtoken=***');
    clock.advance(10_000);
  });

  it('the client sends its language on every call unless the query sets another', async () => {
    const urlOf = (e: unknown) => (e as ApiError).request.url;
    const ru = clientFor(ctx.sim, 'query', { language: 'ru' });
    const foreign = { ...WINDOW, account: 'not-ours' };
    expect(urlOf(await ru.total(foreign).catch((e: unknown) => e))).toContain('language=ru');
    expect(urlOf(await ru.total({ ...foreign, language: 'en' }).catch((e: unknown) => e))).toContain('language=en');
    expect(
      urlOf(
        await clientFor(ctx.sim)
          .total(foreign)
          .catch((e: unknown) => e),
      ),
    ).not.toContain('language=');
  });

  it('the 31st call within the quota period gets 429 with Retry-After', async () => {
    const client = clientFor(ctx.sim);
    for (let i = 0; i < 30; i++) {
      clock.advance(100);
      await client.total(WINDOW);
    }
    const err = await client.total(WINDOW).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(429);
    expect((err as ApiError).description).toBe('Too Many Requests');
    // The first of the 30 calls leaves the window 10 s after it was made: 100 ms + 10 s − 3 s from now.
    expect((err as ApiError).retryAfterSec).toBe(8);
    expect(isRetryable(err)).toBe(true);
    clock.advance(8_000);
    await expect(client.total(WINDOW)).resolves.toMatchObject({ start: WINDOW.start });
  });
});
