import { describe, expect, it } from 'vitest';
import { ASSUMED_LIFETIME_MS, parseLoginAnswer } from '../../src/auth/login-request.js';

describe('the login answer', () => {
  it('reads the shape public clients show, with status and lifetime as numbers or strings', () => {
    expect(
      parseLoginAnswer(200, '{"status": 200, "person_id": 7, "token": "abcdef123", "lifetime": 21599000}'),
    ).toEqual({
      ok: true,
      token: 'abcdef123',
      lifetimeMs: 21_599_000,
      lifetimeAssumed: false,
    });
    expect(parseLoginAnswer(200, '{"status": "200", "token": "abcdef123", "lifetime": "60000"}')).toMatchObject({
      lifetimeMs: 60_000,
    });
  });

  it('assumes six hours when the lifetime is missing or not a number', () => {
    for (const lifetime of ['', ',"lifetime": null', ',"lifetime": "soon"', ',"lifetime": ""', ',"lifetime": true']) {
      expect(parseLoginAnswer(200, `{"token": "abcdef123"${lifetime}}`)).toMatchObject({
        lifetimeMs: ASSUMED_LIFETIME_MS,
        lifetimeAssumed: true,
      });
    }
  });

  it('takes a lifetime of 0 or less as it comes: a token that expires now', () => {
    for (const [lifetime, ms] of [
      ['0', 0],
      ['-5', -5],
      ['"0"', 0],
      ['-21599000', -21_599_000],
    ] as const) {
      expect(parseLoginAnswer(200, `{"token": "abcdef123", "lifetime": ${lifetime}}`)).toEqual({
        ok: true,
        token: 'abcdef123',
        lifetimeMs: ms,
        lifetimeAssumed: false,
      });
    }
  });

  it('refuses an answer without a token or with a failing status, quoting no secret', () => {
    expect(parseLoginAnswer(200, '{"status": 200}')).toEqual({
      ok: false,
      status: 200,
      problem: 'the answer has no token',
    });
    expect(parseLoginAnswer(200, '<html>')).toMatchObject({ ok: false, problem: 'the answer has no token' });
    expect(parseLoginAnswer(401, '{"status": 401, "description": "invalid credentials"}')).toEqual({
      ok: false,
      status: 401,
      problem: 'HTTP 401 (status 401): invalid credentials',
    });
    const echoed = parseLoginAnswer(
      200,
      '{"status": 403, "token": "leaked-token-xyz", "description": "token leaked-token-xyz refused"}',
    );
    expect(echoed).toMatchObject({ ok: false });
    expect(JSON.stringify(echoed)).not.toContain('leaked-token-xyz');
  });
});
