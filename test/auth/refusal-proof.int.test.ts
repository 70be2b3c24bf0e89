import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LoginTokenProvider } from '../../src/auth/login.js';
import type { TokenProvider } from '../../src/http/token-provider.js';
import { FileTokenProvider } from '../../src/auth/token-file.js';
import { ManualClock } from '../../src/clock.js';
import { createRuntime } from '../../src/app/runtime.js';
import { HttpClient } from '../../src/http/client.js';
import { ApiError } from '../../src/http/errors.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/sim/server.js';
import { LOGIN_PATH } from '../../src/spec/login.js';
import { MINUTE } from '../../src/time.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { configFor, onlyJobs, type LogLine } from '../helpers/collector.js';

/**
 * A metrics 403 says "Invalid token or no access" for both: it is decided by what the token has proven, never by its
 * age. A call with the same token served after the refused one was sent proves the token alive (no access: no login,
 * no retry); otherwise one renewal and one retry, and the renewed token refused too means no access.
 */
const LOGIN = { username: 'ops@example', password: 'correct horse battery' };
const T0 = Date.UTC(2026, 10, 20, 12);

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(extra: Partial<SimulatorOptions> = {}, tokens?: (sim: Simulator) => TokenProvider | string) {
  const clock = new ManualClock(T0);
  const sim = await startSimulator({ clock, quotas: NO_QUOTAS, login: { ...LOGIN }, ...extra });
  cleanups.push(() => sim.close());
  const provider =
    tokens?.(sim) ?? new LoginTokenProvider({ baseUrl: sim.url, ...LOGIN, bodyFormat: 'form', timeoutMs: 5000, clock });
  const http = new HttpClient({ baseUrl: sim.url, token: provider });
  cleanups.push(() => http.close());
  const [readable, denied] = sim.accounts as [string, string];
  const metricsGet = (account: string) => {
    const end = Math.floor(clock.now() / MINUTE) * MINUTE - 10 * MINUTE;
    const at = (ms: number) => new Date(ms).toISOString().slice(0, 19);
    const query = { account, start: at(end - 5 * MINUTE), end: at(end), metric: 'edge_requests_total' };
    return http.request({ api: 'metrics', method: 'GET', path: '/app/metrics/v1/', query, schema: z.unknown() });
  };
  const refused = (account: string) =>
    metricsGet(account).then(
      () => expect.unreachable(),
      (e: unknown) => e,
    );
  const metricsCalls = () => sim.stats.apis.metrics.requests;
  return { clock, sim, http, readable, denied, metricsGet, refused, metricsCalls };
}

/**
 * Metrics calls answer 300 ms late, so two calls sent together are both under way when one is answered: the proof
 * does not depend on which the machine sent first.
 */
function slowAnswers(sim: Simulator): void {
  sim.faults.set('metrics', { rate: 1, kinds: ['slow'], slowMs: 300 });
}

describe('a metrics 403 decided by proof, not by the token age', () => {
  it('a token the service dropped a minute after its login is renewed at once and the call retried', async () => {
    const { clock, sim, readable, metricsGet } = await setUp();
    expect((await metricsGet(readable)).status).toBe(200);
    clock.advance(MINUTE);
    sim.revokeLoginTokens();
    expect((await metricsGet(readable)).status).toBe(200);
    expect(sim.logins).toBe(2);
    expect(sim.stats.apis.metrics.byStatus[403]).toBe(1);
  });

  it("a token rotated by another client's login is renewed at once", async () => {
    const { sim, readable, metricsGet } = await setUp({ login: { ...LOGIN, rotateTokens: true } });
    expect((await metricsGet(readable)).status).toBe(200);
    const other = await fetch(`${sim.url}${LOGIN_PATH}`, { method: 'POST', body: new URLSearchParams(LOGIN) });
    expect(other.status).toBe(200);
    expect((await metricsGet(readable)).status).toBe(200);
    expect(sim.logins).toBe(3);
    expect(sim.stats.apis.metrics.byStatus[403]).toBe(1);
  });

  it('a 403 while a call sent after it with the same token is served is no access: no login, no retry', async () => {
    const { clock, sim, readable, denied, metricsGet, refused, metricsCalls } = await setUp();
    sim.settings.metricsDeniedAccounts = [denied];
    expect((await metricsGet(readable)).status).toBe(200);
    clock.advance(15 * MINUTE); // no longer a young token: its age decides nothing
    slowAnswers(sim);
    const [err, served] = await Promise.all([refused(denied), metricsGet(readable)]);
    expect(served.status).toBe(200);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 403, noAccess: true, request: { api: 'metrics', account: denied } });
    expect(sim.logins).toBe(1);
    expect(metricsCalls()).toBe(3);
    // Proven once, the account's refusals cost no login and no retry, however many passes.
    for (let i = 0; i < 4; i++) expect(await refused(denied)).toMatchObject({ noAccess: true });
    expect(sim.logins).toBe(1);
    expect(metricsCalls()).toBe(7);
  });

  it('with nothing served, one renewal and one retry; the renewed token refused too is no access', async () => {
    const { sim, denied, refused, metricsCalls } = await setUp();
    sim.settings.metricsDeniedAccounts = [denied];
    expect(await refused(denied)).toMatchObject({ status: 403, noAccess: true, tokenRenewal: 'renewed' });
    expect(sim.logins).toBe(2);
    expect(metricsCalls()).toBe(2);
    for (let i = 0; i < 3; i++) expect(await refused(denied)).toMatchObject({ noAccess: true });
    expect(sim.logins).toBe(2);
    expect(metricsCalls()).toBe(5);
  });

  it('with a token file, a refusal the token disproves re-reads nothing and retries nothing', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'token-')), 'token');
    const { sim, readable, denied, metricsGet, refused, metricsCalls } = await setUp({}, (s) => {
      writeFileSync(file, `${s.token}\n`);
      return new FileTokenProvider(file);
    });
    sim.settings.metricsDeniedAccounts = [denied];
    slowAnswers(sim);
    const [err] = await Promise.all([refused(denied), metricsGet(readable)]);
    expect(err).toMatchObject({ status: 403, noAccess: true, request: { account: denied } });
    expect(metricsCalls()).toBe(2);
  });
});

describe('the same rule on the DVR API, whose 403 naming an account is not documented', () => {
  it('a 403 while the same token is served for another account is no access', async () => {
    const limited = 'limited-dvr-token-0123456789';
    const { sim, http } = await setUp({}, () => limited);
    const [readable, denied] = [sim.streams[0]!, sim.streams.find((s) => s.account !== sim.streams[0]!.account)!];
    sim.addToken(limited, { accounts: [readable.account] });
    const dvrGet = ({ account, stream }: { account: string; stream: string }) =>
      http.request({
        api: 'dvr',
        account,
        method: 'GET',
        path: `/app/dvr-net/v1/${account}/streams/${encodeURIComponent(stream)}`,
        schema: z.unknown(),
      });
    sim.faults.set('dvr', { rate: 1, kinds: ['slow'], slowMs: 300 }); // both under way when one is answered
    const [served, err] = await Promise.all([dvrGet(readable), dvrGet(denied).catch((e: unknown) => e)]);
    expect(served.status).toBe(200);
    expect(err).toMatchObject({ status: 403, noAccess: true, request: { api: 'dvr', account: denied.account } });
  });
});

describe.each([
  ['a login', (_sim: Simulator) => LOGIN],
  [
    'a token file',
    (sim: Simulator) => {
      const tokenFile = join(mkdtempSync(join(tmpdir(), 'token-')), 'token');
      writeFileSync(tokenFile, `${sim.token}\n`);
      return { tokenFile };
    },
  ],
])('the daemon with an account the metrics API refuses, its token from %s', (_source, tokenSource) => {
  it('one error line naming the API and the account, no token blamed, no login', { timeout: 30_000 }, async () => {
    const clock = new ManualClock(T0);
    const sim = await startSimulator({ clock, quotas: NO_QUOTAS, login: { ...LOGIN } });
    cleanups.push(() => sim.close());
    const [readable, denied] = sim.accounts as [string, string];
    sim.settings.metricsDeniedAccounts = [denied];
    // The jobs' calls go out together, as over a real network: each answered while the others are under way.
    sim.faults.set('metrics', { rate: 1, kinds: ['slow'], slowMs: 100 });
    const out = join(mkdtempSync(join(tmpdir(), 'proof-')), 'points.lp');
    const config = configFor(
      sim,
      { type: 'file', path: out },
      { api: { baseUrl: sim.url, ...tokenSource(sim) }, accounts: [readable, denied], jobs: onlyJobs({ metrics: {} }) },
    );
    const { log, text } = capturedLogger();
    const rt = await createRuntime(config, clock, log);
    cleanups.push(() => rt.close());
    for (let pass = 0; pass < 4; pass++) {
      await rt.collector.tick();
      clock.advance(MINUTE);
    }
    const lines = text()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as LogLine);
    const noAccess = lines.filter((l) => l.refusal === 'no-access');
    expect(noAccess).toEqual([expect.objectContaining({ level: 50, api: 'metrics', account: denied })]);
    expect(lines.filter((l) => l.event === 'failing' && /^HTTP 40[13]$/.test(String(l.reason)))).toEqual([]);
    expect(lines.filter((l) => l.level >= 40 && l.event === 'span_failed')).toEqual([]);
    // At most the one renewal the rule allows before anything proved the token alive, and none after.
    expect(sim.logins).toBeLessThanOrEqual(2);
    const loginsAfterFirstPasses = sim.logins;
    await rt.collector.tick();
    expect(sim.logins).toBe(loginsAfterFirstPasses);
  });
});
