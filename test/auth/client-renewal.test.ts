import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LoginTokenProvider } from '../../src/auth/login.js';
import { ManualClock } from '../../src/clock.js';
import type { HttpClient, Gate } from '../../src/http/client.js';
import { ApiError } from '../../src/http/errors.js';
import { SPECIAL_TOKENS } from '../../src/sim/auth.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import type { Simulator } from '../../src/sim/server.js';
import type { ApiName } from '../../src/spec/apis.js';
import { simInProcess, simClient, reach } from '../helpers/in-process.js';

const T0 = Date.UTC(2026, 2, 2, 10, 5, 0);
const LOGIN = { username: 'ops@example', password: 'sim-password-123', tokenLifetimeMs: 10 * 60_000 };

/**
 * The HTTP client against the simulator's login: a call refused as expired is renewed and retried once, and the retry
 * passes the gate (the limiter) again, so every HTTP request takes its own quota slot.
 */
describe('HttpClient with a login token provider', () => {
  const clock = new ManualClock(T0);
  let sim: Simulator;
  let provider: LoginTokenProvider;
  let http: HttpClient;
  const gated: ApiName[] = [];
  const gate: Gate = (api, send) => {
    gated.push(api);
    return send();
  };

  beforeAll(async () => {
    sim = simInProcess({ clock, quotas: NO_QUOTAS, login: LOGIN });
    provider = new LoginTokenProvider({
      ...reach(sim.url),
      baseUrl: sim.url,
      ...LOGIN,
      bodyFormat: 'form',
      timeoutMs: 5000,
      clock,
    });
    http = simClient(sim, { token: provider, gate });
  });
  afterAll(async () => {
    await http.close();
    await sim.close();
  });

  const dvrGet = () => {
    const { account, stream } = sim.streams[0]!;
    return http.request({
      api: 'dvr',
      method: 'GET',
      path: `/app/dvr-net/v1/${account}/streams/${encodeURIComponent(stream)}`,
      schema: z.unknown(),
    });
  };
  const statisticGet = () =>
    http.request({
      api: 'statistic',
      method: 'GET',
      path: '/app/statistic/v3',
      query: { start: '2026-03-02T09:00:00Z', end: '2026-03-02T09:10:00Z' },
      schema: z.unknown(),
    });

  it('logs in before the first call and reuses the token', async () => {
    gated.length = 0;
    await dvrGet();
    await dvrGet();
    expect(sim.logins).toBe(1);
    expect(gated).toEqual(['dvr', 'dvr']);
  });

  it('a 403 "Token is expired" is renewed once and the call retried through the gate', async () => {
    sim.expireLoginTokens();
    gated.length = 0;
    const before = sim.stats.apis.dvr.byStatus[403] ?? 0;
    expect((await dvrGet()).status).toBe(200);
    expect(sim.logins).toBe(2);
    expect(gated).toEqual(['dvr', 'dvr']); // the refused attempt and the retry: two slots
    expect(sim.stats.apis.dvr.byStatus[403]).toBe(before + 1);
  });

  it('a 401 "token is invalid" from the statistics API likewise; 20 refused calls share one login', async () => {
    sim.expireLoginTokens();
    const results = await Promise.all(Array.from({ length: 20 }, () => statisticGet()));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(sim.logins).toBe(3);
  });

  it('renews before expiry, so a long run meets no refusal', async () => {
    const refusedBefore = sim.stats.apis.dvr.byStatus[403] ?? 0;
    for (let i = 0; i < 12; i++) {
      clock.advance(3 * 60_000);
      await dvrGet();
    }
    expect(sim.stats.apis.dvr.byStatus[403] ?? 0).toBe(refusedBefore);
    expect(sim.logins).toBeGreaterThanOrEqual(3 + 4);
  });

  it('a static token that is refused is not retried', async () => {
    const stale = simClient(sim, { token: SPECIAL_TOKENS.expired, gate });
    gated.length = 0;
    const { account, stream } = sim.streams[0]!;
    const err = await stale
      .request({
        api: 'dvr',
        method: 'GET',
        path: `/app/dvr-net/v1/${account}/streams/${encodeURIComponent(stream)}`,
        schema: z.unknown(),
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 403, description: 'Token expired' });
    expect(gated).toEqual(['dvr']);
    await stale.close();
  });
});
