import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LoginTokenProvider } from '../../src/auth/login.js';
import { ManualClock } from '../../src/clock.js';
import type { HttpClient } from '../../src/http/client.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import type { Simulator } from '../../src/sim/server.js';
import type { SimLogin } from '../../src/sim/login.js';
import { LOGINS_PER_MINUTE } from '../../src/spec/login.js';
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { AuthReports } from '../../src/telemetry/auth-reports.js';
import { FailureLines } from '../../src/telemetry/failure-lines.js';
import { MINUTE } from '../../src/time.js';
import { capturedLogger } from '../helpers/captured-log.js';
import type { LogLine } from '../helpers/collector.js';
import { simInProcess, simClient, simFetch, reach } from '../helpers/in-process.js';

/**
 * The login's answer taken as it comes (src/spec/login.ts): `lifetime` is the time left, so 0 or less is a token that
 * expires now — never sent, renewed before the next call within the service's 20 logins a minute; missing or not a
 * number, the default with a warning naming the field. The inventory refuses a token with 401 and no body.
 */
const LOGIN = { username: 'ops@example', password: 'correct horse battery' };
const T0 = Date.UTC(2026, 10, 20, 12);

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(login: Partial<SimLogin>) {
  const clock = new ManualClock(T0);
  const sim = simInProcess({ clock, quotas: NO_QUOTAS, login: { ...LOGIN, ...login } });
  cleanups.push(() => sim.close());
  const { log, text } = capturedLogger();
  const telemetry = new Telemetry({ clock });
  const auth = new AuthReports(telemetry, log, clock, new FailureLines(log, clock));
  const tokens = new LoginTokenProvider({
    ...reach(sim.url),
    baseUrl: sim.url,
    ...LOGIN,
    bodyFormat: 'form',
    timeoutMs: 5000,
    clock,
    random: () => 1,
    onEvent: (e) => auth.report(e),
  });
  const http = simClient(sim, { token: tokens });
  cleanups.push(() => http.close());
  const lines = () =>
    text()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as LogLine);
  return { clock, sim, http, lines };
}

function dvrGet(http: HttpClient, sim: Simulator) {
  const { account, stream } = sim.streams[0]!;
  const path = `/app/dvr-net/v1/${account}/streams/${encodeURIComponent(stream)}`;
  return http.request({ api: 'dvr', account, method: 'GET', path, schema: z.unknown() });
}

const refusedDvrCalls = (sim: Simulator) => sim.stats.apis.dvr.byStatus[403] ?? 0;

describe('the login answer taken as it comes', () => {
  it('lifetime 0: the token expires now, so it is renewed before the call and no call carries it', async () => {
    const { sim, http, lines } = await setUp({ lifetimeAnswers: [0] });
    expect((await dvrGet(http, sim)).status).toBe(200);
    expect((await dvrGet(http, sim)).status).toBe(200);
    expect(sim.logins).toBe(2);
    expect(refusedDvrCalls(sim)).toBe(0);
    expect(lines().filter((l) => l.field === 'lifetime')).toEqual([
      expect.objectContaining({ level: 40, lifetimeMs: 0 }),
    ]);
  });

  it('a negative lifetime likewise', async () => {
    const { sim, http } = await setUp({ lifetimeAnswers: [-60_000] });
    expect((await dvrGet(http, sim)).status).toBe(200);
    expect(sim.logins).toBe(2);
    expect(refusedDvrCalls(sim)).toBe(0);
  });

  it('lifetime 0 at every login: within 20 logins a minute, no loop, no call with a dead token', async () => {
    const { clock, sim, http } = await setUp({ lifetimeAnswers: Array.from({ length: 500 }, () => 0) });
    const loginsAt: number[] = [];
    for (let second = 0; second < 3 * 60; second++) {
      const before = sim.logins;
      const err = await dvrGet(http, sim).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: 'CDN_ERR_LOGIN' });
      for (let i = before; i < sim.logins; i++) loginsAt.push(clock.now());
      clock.advance(1000);
    }
    const worstMinute = Math.max(...loginsAt.map((at) => loginsAt.filter((x) => x >= at && x < at + MINUTE).length));
    expect(worstMinute).toBeLessThanOrEqual(LOGINS_PER_MINUTE);
    expect(sim.stats.apis.dvr.requests).toBe(0);
  });

  it('lifetime missing or not a number: the default, with a warning naming the field', async () => {
    for (const lifetime of [null, 'soon']) {
      const { sim, http, lines } = await setUp({ lifetimeAnswers: [lifetime] });
      expect((await dvrGet(http, sim)).status).toBe(200);
      expect(sim.logins).toBe(1);
      expect(lines().filter((l) => l.level === 40)).toEqual([
        expect.objectContaining({ field: 'lifetime', lifetimeMs: 6 * 60 * MINUTE }),
      ]);
    }
  });
});

describe("the inventory's refusal", () => {
  it('is 401 with no body, as the vendor page says; the client takes it as the token and renews it', async () => {
    const { readAccounts } = await import('../../src/sources/accounts.js');
    const { clock, sim, http } = await setUp({});
    const raw = await simFetch(`${sim.url}/app/inventory/v1/accounts/`, {
      headers: { 'cdn-auth-token': 'not-a-token' },
    });
    expect({ status: raw.status, body: await raw.text() }).toEqual({ status: 401, body: '' });
    expect((await readAccounts(http, clock.now())).from).toBe('inventory');
    sim.revokeLoginTokens(); // a young token dropped by the service
    expect(await readAccounts(http, clock.now())).toEqual({ accounts: [...sim.accounts].sort(), from: 'inventory' });
    expect(sim.logins).toBe(2);
  });
});
