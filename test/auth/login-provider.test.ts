import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { LoginError } from '../../src/auth/errors.js';
import { LoginTokenProvider, type LoginOptions } from '../../src/auth/login.js';
import type { LoginAnswer } from '../../src/auth/login-request.js';
import type { AuthEvent } from '../../src/auth/events.js';

const HOUR = 3_600_000;

/** A provider whose logins are counted and answered by `answer` (default: a new token with a 6 h lifetime). */
function provider(answer?: (n: number) => LoginAnswer | Promise<LoginAnswer>, extra: Partial<LoginOptions> = {}) {
  const clock = new ManualClock(1_000_000);
  const events: AuthEvent[] = [];
  let n = 0;
  const tokens = new LoginTokenProvider({
    baseUrl: 'https://cdn.example',
    username: 'ops',
    password: 'correct horse battery',
    bodyFormat: 'form',
    timeoutMs: 1000,
    clock,
    random: () => 0.5,
    backoff: { baseMs: 1000, capMs: 60_000 },
    onEvent: (e) => events.push(e),
    send: async () => {
      n++;
      await new Promise((r) => setTimeout(r, 5));
      return answer
        ? answer(n)
        : { ok: true, token: `token-number-${n}`, lifetimeMs: 6 * HOUR, lifetimeAssumed: false };
    },
    ...extra,
  });
  return { tokens, clock, events, logins: () => n };
}

describe('login token provider', () => {
  it('20 concurrent calls before the first token share one login', async () => {
    const { tokens, logins } = provider();
    const got = await Promise.all(Array.from({ length: 20 }, () => tokens.current()));
    expect(new Set(got)).toEqual(new Set(['token-number-1']));
    expect(logins()).toBe(1);
  });

  it('renews once 80 % of the lifetime has passed, not before', async () => {
    const { tokens, clock, logins } = provider();
    expect(await tokens.current()).toBe('token-number-1');
    clock.advance(0.8 * 6 * HOUR - 1);
    expect(await tokens.current()).toBe('token-number-1');
    clock.advance(1);
    expect(await tokens.current()).toBe('token-number-2');
    expect(logins()).toBe(2);
  });

  it('a refused token is renewed once however many calls report it; a late report gets the new token', async () => {
    const { tokens, logins } = provider();
    const first = await tokens.current();
    const renewed = await Promise.all(Array.from({ length: 20 }, () => tokens.renew(first)));
    expect(new Set(renewed)).toEqual(new Set(['token-number-2']));
    expect(await tokens.renew(first)).toBe('token-number-2');
    expect(logins()).toBe(2);
  });

  it(
    'a failed login is a LoginError naming the login, ' + 'with backoff before the next try, reported for /healthz',
    async () => {
      const { tokens, clock, events, logins } = provider((n) =>
        n <= 2
          ? { ok: false, status: 401, problem: 'HTTP 401: invalid credentials' }
          : { ok: true, token: 'token-after-all', lifetimeMs: HOUR, lifetimeAssumed: false },
      );
      const err = await tokens.current().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LoginError);
      expect(err).toMatchObject({ code: 'CDN_ERR_LOGIN', status: 401, retryInMs: 1000 });
      expect((err as Error).message).toMatch(
        /^login POST https:\/\/cdn\.example\/app\/oauth\/v1\/token\/ failed: HTTP 401: invalid credentials: /,
      );
      // Within the backoff no login is tried: the same error at once.
      await expect(tokens.current()).rejects.toBe(err);
      expect(logins()).toBe(1);
      clock.advance(1000);
      const second = await tokens.current().catch((e: unknown) => e);
      expect(second).toMatchObject({ retryInMs: 1000 }); // max(base, jittered 0.5 × 2 s)
      clock.advance(999);
      await expect(tokens.current()).rejects.toBe(second);
      clock.advance(1);
      expect(await tokens.current()).toBe('token-after-all');
      expect(logins()).toBe(3);
      expect(events.map((e) => e.type)).toEqual(['failed', 'failed', 'obtained']);
    },
  );

  it('while renewal fails, the previous token is used until it expires', async () => {
    const { tokens, clock } = provider((n) =>
      n === 1
        ? { ok: true, token: 'token-first', lifetimeMs: HOUR, lifetimeAssumed: false }
        : { ok: false, problem: 'ECONNREFUSED' },
    );
    await tokens.current();
    clock.advance(0.9 * HOUR);
    expect(await tokens.current()).toBe('token-first');
    clock.advance(0.1 * HOUR);
    await expect(tokens.current()).rejects.toBeInstanceOf(LoginError);
  });
});
