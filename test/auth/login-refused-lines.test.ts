import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LoginTokenProvider } from '../../src/auth/login.js';
import { LoginsStoppedError, MAX_CREDENTIAL_REFUSALS } from '../../src/auth/login-stop.js';
import { refusalLedger } from '../../src/auth/from-config.js';
import { ManualClock } from '../../src/clock.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import type { Simulator } from '../../src/sim/server.js';
import { evaluateHealth } from '../../src/telemetry/health.js';
import { HOUR } from '../../src/time.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { configFor } from '../helpers/collector.js';
import { simInProcess, runtimeInProcess, reach } from '../helpers/in-process.js';

const LOGIN = { username: 'ops@example', password: 'the-right-password-9' };

interface Line {
  level: number;
  msg: string;
  code?: string;
  username?: string;
  [key: string]: unknown;
}

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('a wrong password in the daemon', () => {
  it('is one error line naming the username, a summary a minute, one line when a login works again', async () => {
    const clock = new ManualClock(Math.floor(Date.now() / HOUR) * HOUR - HOUR);
    sim = simInProcess({ clock, quotas: NO_QUOTAS, login: { ...LOGIN } });
    const dir = mkdtempSync(join(tmpdir(), 'refused-lines-'));
    const passwordFile = join(dir, 'password');
    writeFileSync(passwordFile, 'a-typo\n');
    const config = configFor(
      sim,
      { type: 'file', path: join(dir, 'points.lp') },
      { api: { baseUrl: sim.url, username: LOGIN.username, passwordFile } },
    );
    const logs = capturedLogger();
    const rt = await runtimeInProcess(config, clock, logs.log);
    const lines = () =>
      logs
        .text()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Line);
    try {
      // Ten minutes of passes every 30 s, as the daemon runs them: every job waits for a token.
      for (let i = 0; i < 20; i++) {
        await rt.collector.tick();
        clock.advance(30_000);
      }
      expect(sim.loginService!.refused).toBe(MAX_CREDENTIAL_REFUSALS);
      const loud = lines().filter((l) => l.level >= 40);
      const errors = loud.filter((l) => l.level >= 50);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ code: 'CDN_ERR_LOGIN', username: LOGIN.username, refused: 1 });
      expect(errors[0]!.err).toMatch(/at most 6 more wrong passwords before the service bans the account/);
      // Jobs waiting for a token are the login's to report, not a failed span each.
      expect(loud.filter((l) => l.event === 'span_failed')).toEqual([]);
      const summaries = loud.filter((l) => l.event === 'still_failing' && l.source === 'login');
      expect(summaries.length).toBeGreaterThan(0);
      expect(summaries.length).toBeLessThanOrEqual(10);
      expect(summaries.at(-1)).toMatchObject({ stopped: true, refused: 3 });
      expect(evaluateHealth(rt.telemetry, { maxLagMs: 10 * HOUR }).reasons?.auth).toContain(LOGIN.username);

      writeFileSync(passwordFile, `${LOGIN.password}\n`); // the operator fixes the file: the daemon tries it at once
      const ok = await rt.collector.tick();
      expect(ok.filter((r) => r.error)).toEqual([]);
      expect(lines().filter((l) => l.event === 'answers_again' && l.source === 'login')).toHaveLength(1);
      expect(evaluateHealth(rt.telemetry, { maxLagMs: 10 * HOUR }).reasons?.auth).toBeUndefined();
      expect(logs.text()).not.toContain(LOGIN.password);
      expect(logs.text()).not.toContain('a-typo');
    } finally {
      await rt.close();
    }
  });
});

describe('the count of refused logins in the state dir', () => {
  const provider = (dir: string, password: string, forceLogin = false) =>
    new LoginTokenProvider({
      ...reach(sim!.url),
      baseUrl: sim!.url,
      username: LOGIN.username,
      password,
      bodyFormat: 'form',
      timeoutMs: 5000,
      clock: sim!.clock,
      ledger: refusalLedger(dir, LOGIN.username),
      forceLogin,
    });

  it('is shared by providers of separate processes: together they stop at 3; --force-login sends one', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 20, 12));
    sim = simInProcess({ clock, quotas: NO_QUOTAS, login: { ...LOGIN } });
    const dir = mkdtempSync(join(tmpdir(), 'refusal-count-'));
    for (let i = 0; i < 2; i++)
      await provider(dir, 'a-typo')
        .current()
        .catch(() => undefined);
    const third = provider(dir, 'another-typo');
    await third.checkStart();
    await third.current().catch(() => undefined);
    expect(sim.loginService!.refused).toBe(3);

    const later = provider(dir, 'a-typo');
    const stopped = await later.checkStart().catch((e: unknown) => e);
    expect(stopped).toBeInstanceOf(LoginsStoppedError);
    expect(stopped).toMatchObject({ code: 'CDN_ERR_LOGINS_STOPPED', username: LOGIN.username, refused: 3 });
    await expect(later.current()).rejects.toMatchObject({ code: 'CDN_ERR_LOGIN' });
    expect(sim.logins).toBe(3); // no login sent

    const forced = provider(dir, LOGIN.password, true);
    await forced.checkStart();
    expect(await forced.current()).toMatch(/./);
    expect(sim.logins).toBe(4);
    await provider(dir, LOGIN.password).checkStart(); // the success cleared the count
  });

  it('once stopped, one login is tried after the pause, and none past the tries kept for the operator', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 20, 12));
    sim = simInProcess({ clock, quotas: NO_QUOTAS, login: { ...LOGIN } });
    const dir = mkdtempSync(join(tmpdir(), 'refusal-pause-'));
    for (let i = 0; i < 3; i++)
      await provider(dir, 'a-typo')
        .current()
        .catch(() => undefined);
    for (let h = 0; h < 48; h++) {
      await provider(dir, 'a-typo')
        .current()
        .catch(() => undefined);
      clock.advance(HOUR);
    }
    // 3, then one after each 6 h pause while 2 tries stay for the operator: 5, never the 7 of the ban.
    expect(sim.loginService!.refused).toBe(5);
    expect(sim.loginService!.banned(clock.now())).toBe(false);
  });
});
