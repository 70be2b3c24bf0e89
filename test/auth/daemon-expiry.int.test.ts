import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, ScaledClock } from '../../src/clock.js';
import { createRuntime, type Runtime } from '../../src/app/runtime.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { API_NAMES } from '../../src/spec/apis.js';
import { evaluateHealth } from '../../src/telemetry/health.js';
import { HOUR, MINUTE } from '../../src/time.js';
import { configFor } from '../helpers/collector.js';
import { capturedLogger } from '../helpers/captured-log.js';

const PASSWORD = 'sim-daemon-password-42';

function loginConfig(sim: Simulator, password = PASSWORD) {
  const out = join(mkdtempSync(join(tmpdir(), 'auth-')), 'points.lp');
  return configFor(
    sim,
    { type: 'file', path: out },
    {
      api: { baseUrl: sim.url, username: 'ops@example', password },
    },
  );
}

/**
 * The collector against the simulator's login across many token lifetimes, on a clock 200× faster than real time with
 * the spec's quotas: tokens are renewed before they expire (and once after a forced expiry), no window is missed, and
 * the server never answers 429. (At 600× a token lived 0.5 real seconds: on a loaded machine a renewed token expired
 * before its retried call arrived, which no real 6-hour token can.)
 */
describe('the collector across token expiries', () => {
  const start = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
  const clock = new ScaledClock(start, 200);
  let sim: Simulator;
  let rt: Runtime;
  const logs = capturedLogger();

  beforeAll(async () => {
    sim = await startSimulator({
      clock,
      login: { username: 'ops@example', password: PASSWORD, tokenLifetimeMs: 5 * MINUTE },
    });
    rt = await createRuntime(loginConfig(sim), clock, logs.log);
  });
  afterAll(async () => {
    await rt?.close();
    await sim?.close();
  });

  const refusedCalls = (api: (typeof API_NAMES)[number]) =>
    (sim.stats.apis[api].byStatus[401] ?? 0) + (sim.stats.apis[api].byStatus[403] ?? 0);

  it('collects with no missing window, no 429 and no leaked secret', { timeout: 60_000 }, async () => {
    const end = clock.now() + 45 * MINUTE; // nine lifetimes
    let forced = false;
    let loginsAtForce = 0;
    while (clock.now() < end) {
      const results = await rt.collector.tick();
      expect(results.filter((r) => r.error).map((r) => `${r.key}: ${String(r.error)}`)).toEqual([]);
      if (!forced && clock.now() > end - 20 * MINUTE) {
        // Until now every expiry was the token's own: the collector knew of each one and renewed before it.
        for (const api of API_NAMES) expect(refusedCalls(api), api).toBe(0);
        sim.expireLoginTokens(); // as if the service restarted: the next calls are refused and renewed
        loginsAtForce = sim.logins;
        forced = true;
      }
    }
    expect(sim.logins).toBeGreaterThanOrEqual(9);
    for (const api of API_NAMES) {
      expect(sim.stats.apis[api].quotaRejections, api).toBe(0);
      expect(sim.stats.apis[api].byStatus[429], api).toBeUndefined();
    }
    // Every checkpointed job's confirmed history is one unbroken span from its origin.
    for (const job of rt.collector.jobs.filter((j) => j.checkpointed)) {
      expect(rt.store.confirmed(job.key).length, job.key).toBe(1);
    }
    expect(evaluateHealth(rt.telemetry, { maxLagMs: HOUR }).reasons?.auth).toBeUndefined();
    const text = logs.text();
    expect(text).toContain('"event":"logged_in"');
    // A refusal the renewal cured is an info line, never an error telling the operator to check a token. On a loaded
    // machine a tick can outlast the renew-before-expiry point of this fast clock: then the collector's own renewal
    // replaced the expired token before any call carried it, and nothing was refused.
    const refusedAfterForce = API_NAMES.reduce((n, api) => n + refusedCalls(api), 0);
    if (refusedAfterForce > 0) expect(text).toContain('"event":"token_renewing"');
    else expect(sim.logins).toBeGreaterThan(loginsAtForce);
    expect(text.split('\n').filter((l) => l.includes('"level":50'))).toEqual([]);
    expect(text).not.toContain('check api.token');
    // The forced expiry costs each job at most the one call it had under way with the dead token.
    for (const api of API_NAMES) {
      expect(refusedCalls(api), api).toBeLessThanOrEqual(
        rt.collector.jobs.filter((j) => j.key.startsWith(`${api}`)).length,
      );
    }
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toMatch(/sim-login-[0-9a-f]/);
  });
});

describe('a failed login', () => {
  const clock = new ManualClock(Math.floor(Date.now() / HOUR) * HOUR - HOUR);
  const login = { username: 'ops@example', password: 'rotated-password-1' };
  let sim: Simulator;

  beforeAll(async () => {
    sim = await startSimulator({ clock, quotas: NO_QUOTAS, login });
  });
  afterAll(() => sim.close());

  it('fails the pass with a LoginError, marks /healthz unhealthy, clears once a later login works', async () => {
    const logs = capturedLogger();
    const rt = await createRuntime(loginConfig(sim, PASSWORD), clock, logs.log);
    try {
      const failed = await rt.collector.tick();
      const errors = failed.filter((r) => r.error).map((r) => String(r.error));
      expect(errors.length).toBeGreaterThan(0);
      for (const err of errors) {
        expect(err).toMatch(
          /^LoginError: login POST http:\/\/127\.0\.0\.1:\d+\/app\/oauth\/v1\/token\/ failed: HTTP 401/,
        );
        expect(err).not.toContain(PASSWORD);
      }
      expect(sim.logins).toBe(1); // every job waited on the same login, and none retried within the backoff
      const health = evaluateHealth(rt.telemetry, { maxLagMs: 10 * HOUR });
      expect(health.status).toBe('unhealthy');
      expect(health.reasons?.auth).toContain('login POST');

      login.password = PASSWORD; // the operator fixes the account
      clock.advance(5_000); // the first backoff
      const ok = await rt.collector.tick();
      expect(ok.filter((r) => r.error)).toEqual([]);
      expect(evaluateHealth(rt.telemetry, { maxLagMs: 10 * HOUR }).reasons?.auth).toBeUndefined();
      expect(logs.text()).not.toContain(PASSWORD);
    } finally {
      await rt.close();
    }
  });
});
