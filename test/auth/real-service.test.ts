import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LoginTokenProvider } from '../../src/auth/login.js';
import { requestLogin } from '../../src/auth/login-request.js';
import { passwordFileReader } from '../../src/auth/password-file.js';
import { ManualClock } from '../../src/clock.js';
import type { HttpClient } from '../../src/http/client.js';
import { BAN_AFTER_REFUSALS } from '../../src/spec/login.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import type { Simulator, SimulatorOptions } from '../../src/sim/server.js';
import { LOGIN_PATH } from '../../src/spec/login.js';
import { HOUR, MINUTE } from '../../src/time.js';
import { simInProcess, simClient, simFetch, reach } from '../helpers/in-process.js';

/**
 * The login and the refusals as the real service has them (src/spec/login.ts): a form body, `lifetime` as time left,
 * live tokens handed back, a ban after seven wrong passwords, 20 logins a minute, metrics' unpublished 403 text.
 */
const LOGIN = { username: 'ops@example', password: 'correct horse battery' };
const T0 = Date.UTC(2026, 10, 20, 12);

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function simWith(clock: ManualClock, extra: Partial<SimulatorOptions> = {}): Promise<Simulator> {
  sim = simInProcess({ clock, quotas: NO_QUOTAS, login: { ...LOGIN }, ...extra });
  return sim;
}

/** The collector's login to `s` as the real service takes it: a form of LOGIN's username and password. */
function formLogin(s: Simulator, clock: ManualClock): LoginTokenProvider {
  return new LoginTokenProvider({
    ...reach(s.url),
    baseUrl: s.url,
    ...LOGIN,
    bodyFormat: 'form',
    timeoutMs: 5000,
    clock,
  });
}

async function rawLogin(s: Simulator, body: string, contentType: string): Promise<{ status: number; text: string }> {
  const res = await simFetch(`${s.url}${LOGIN_PATH}`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
  });
  return { status: res.status, text: await res.text() };
}

function metricsGet(http: HttpClient, s: Simulator, account = s.accounts[0]!) {
  const end = Math.floor(s.clock.now() / MINUTE) * MINUTE - 10 * MINUTE;
  const at = (ms: number) => new Date(ms).toISOString().slice(0, 19);
  const query = { account, start: at(end - 5 * MINUTE), end: at(end), metric: 'edge_requests_total' };
  return http.request({ api: 'metrics', method: 'GET', path: '/app/metrics/v1/', query, schema: z.unknown() });
}

describe('the simulator is as strict as the real login', () => {
  it('reads the body as a form whatever the header says; a JSON body is 400 with no body', async () => {
    const s = await simWith(new ManualClock(T0));
    const json = await rawLogin(s, JSON.stringify(LOGIN), 'application/json');
    expect(json).toEqual({ status: 400, text: '' });
    const form = new URLSearchParams(LOGIN).toString();
    const untyped = await rawLogin(s, form, 'text/plain'); // two public Go clients send no form Content-Type
    expect(untyped.status).toBe(200);
    expect(JSON.parse(untyped.text)).toMatchObject({ status: 200, lifetime: 21_599_000 });
    const wrong = await rawLogin(
      s,
      new URLSearchParams({ ...LOGIN, password: 'nope' }).toString(),
      'application/x-www-form-urlencoded',
    );
    expect(wrong).toEqual({ status: 401, text: '' });
  });

  it('bans the account for 3 hours after seven wrong passwords, the right one included', async () => {
    const clock = new ManualClock(T0);
    const s = await simWith(clock);
    const form = (password: string) => new URLSearchParams({ ...LOGIN, password }).toString();
    for (let i = 0; i < BAN_AFTER_REFUSALS; i++)
      expect((await rawLogin(s, form('wrong'), 'application/x-www-form-urlencoded')).status).toBe(401);
    expect((await rawLogin(s, form(LOGIN.password), 'application/x-www-form-urlencoded')).status).toBe(403);
    clock.advance(3 * HOUR);
    expect((await rawLogin(s, form(LOGIN.password), 'application/x-www-form-urlencoded')).status).toBe(200);
  });

  it('answers 429 past 20 logins a minute', async () => {
    const clock = new ManualClock(T0);
    const s = await simWith(clock);
    const form = new URLSearchParams(LOGIN).toString();
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await rawLogin(s, form, 'application/x-www-form-urlencoded')).status);
    expect(statuses.slice(0, 20).every((st) => st === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
    clock.advance(MINUTE);
    expect((await rawLogin(s, form, 'application/x-www-form-urlencoded')).status).toBe(200);
  });

  it('with token reuse, a login while the token lives hands it back with the time it has left', async () => {
    const clock = new ManualClock(T0);
    const s = await simWith(clock, { login: { ...LOGIN, reuseTokens: true, tokenLifetimeMs: 10 * MINUTE } });
    const form = new URLSearchParams(LOGIN).toString();
    const first = JSON.parse((await rawLogin(s, form, 'application/x-www-form-urlencoded')).text) as {
      token: string;
      lifetime: number;
    };
    clock.advance(8 * MINUTE);
    const again = JSON.parse((await rawLogin(s, form, 'application/x-www-form-urlencoded')).text) as {
      token: string;
      lifetime: number;
    };
    expect(again).toMatchObject({ token: first.token, lifetime: 2 * MINUTE });
  });
});

describe('the collector against the real login', () => {
  it('logs in with a form by default', async () => {
    const s = await simWith(new ManualClock(T0));
    const answer = await requestLogin({
      ...reach(s.url),
      baseUrl: s.url,
      ...LOGIN,
      bodyFormat: 'form',
      timeoutMs: 5000,
    });
    expect(answer).toMatchObject({ ok: true, lifetimeMs: 21_599_000 });
    const { configSchema } = await import('../../src/config/schema.js');
    const parsed = configSchema.parse({
      api: { baseUrl: s.url, ...LOGIN },
      accounts: s.accounts,
      sink: { type: 'file', path: '/dev/null' },
    });
    expect(parsed.api.loginBody).toBe('form');
  });

  it('a metrics 403 with the documented text, nothing proving the token alive: one renewal, one retry', async () => {
    const clock = new ManualClock(T0);
    const s = await simWith(clock);
    const http = simClient(s, { token: formLogin(s, clock) });
    try {
      expect((await metricsGet(http, s)).status).toBe(200);
      clock.advance(30 * MINUTE);
      s.expireLoginTokens(); // the service restarted: every token is dead, the refusal text says nothing of it
      expect((await metricsGet(http, s)).status).toBe(200);
      expect(s.logins).toBe(2);
      expect(s.stats.apis.metrics.byStatus[403]).toBe(1);
    } finally {
      await http.close();
    }
  });

  it(
    'a login that hands back the live token is no renewal: ' + 'never a call with a dead token, no login storm',
    async () => {
      const clock = new ManualClock(T0);
      const lifetime = 10 * MINUTE;
      const s = await simWith(clock, { login: { ...LOGIN, reuseTokens: true, tokenLifetimeMs: lifetime } });
      const http = simClient(s, { token: formLogin(s, clock) });
      try {
        for (let t = 0; t < 6 * lifetime; t += 20_000) {
          expect((await metricsGet(http, s)).status).toBe(200);
          clock.advance(20_000);
        }
        expect(s.stats.apis.metrics.byStatus[403] ?? 0).toBe(0);
        // One login per token issued plus one renewal at 80 % that hands the live token back.
        expect(s.logins).toBeLessThanOrEqual(2 * 6 + 1);
      } finally {
        await http.close();
      }
    },
  );

  it(
    'a wrong password makes fewer than 7 logins in any 3 hours, ' + 'and a corrected password file resumes at once',
    async () => {
      const clock = new ManualClock(T0);
      const s = await simWith(clock);
      const dir = mkdtempSync(join(tmpdir(), 'pw-'));
      const file = join(dir, 'password');
      writeFileSync(file, 'a typo\n');
      const tokens = new LoginTokenProvider({
        ...reach(s.url),
        baseUrl: s.url,
        username: LOGIN.username,
        password: passwordFileReader(file),
        bodyFormat: 'form',
        timeoutMs: 5000,
        clock,
        random: () => 1,
      });
      const refusedAt: number[] = [];
      for (let t = 0; t < 12 * HOUR; t += 10_000) {
        const before = s.loginService!.refused;
        await tokens.current().catch(() => undefined);
        if (s.loginService!.refused > before) refusedAt.push(clock.now());
        clock.advance(10_000);
      }
      const worstThreeHours = Math.max(
        ...refusedAt.map((at) => refusedAt.filter((x) => x >= at && x < at + 3 * HOUR).length),
      );
      expect(worstThreeHours).toBeLessThan(BAN_AFTER_REFUSALS);
      expect(s.loginService!.banned(clock.now())).toBe(false);
      writeFileSync(file, `${LOGIN.password}\n`);
      expect(await tokens.current()).toMatch(/^sim-login-/);
    },
  );

  it('never sends more than 20 logins a minute, however many refusals ask for one', async () => {
    const clock = new ManualClock(T0);
    let sent = 0;
    let n = 0;
    const tokens = new LoginTokenProvider({
      baseUrl: 'http://cdn.invalid',
      ...LOGIN,
      bodyFormat: 'form',
      timeoutMs: 5000,
      clock,
      send: async () => {
        sent++;
        return { ok: true, token: `token-${++n}`, lifetimeMs: HOUR, lifetimeAssumed: false };
      },
    });
    for (let i = 0; i < 50; i++) {
      const token = await tokens.current().catch(() => undefined);
      if (token) await tokens.renew(token).catch(() => undefined);
    }
    expect(sent).toBe(20);
  });
});

describe('accounts: auto', () => {
  it('reads the inventory (active accounts only, no statistic call); on 404, the statistics grouping', async () => {
    const { readAccounts } = await import('../../src/sources/accounts.js');
    const clock = new ManualClock(T0);
    const s = await simWith(clock);
    const http = simClient(s, { token: s.token });
    try {
      const found = await readAccounts(http, clock.now());
      expect(found).toEqual({ accounts: [...s.accounts].sort(), from: 'inventory' });
      expect(s.stats.apis.statistic.requests).toBe(0);
      s.settings.inventory = false;
      const fallback = await readAccounts(http, clock.now());
      expect(fallback.from).toBe('statistic');
      expect(s.stats.apis.statistic.requests).toBeGreaterThan(0);
    } finally {
      await http.close();
    }
  });
});
