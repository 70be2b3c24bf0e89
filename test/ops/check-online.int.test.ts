import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { API_NAMES } from '../../src/spec/apis.js';
import { scaledQuotas } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { runCli } from '../helpers/cli.js';
import { loopbackServer } from '../helpers/loopback.js';
import { readCheckpoints } from '../helpers/state-files.js';
import { freePort, INFLUXD_BIN, serverSkipReason, startInfluxV1, type InfluxV1Server } from '../helpers/servers.js';
import { ensureBuilt } from './entry.js';
import { feedbackConfig } from './feedback-config.js';

/** Wait bound of a process (not an assertion). */
const PROCESS_LIMIT_MS = 90_000;
const ALL_APIS = ['metrics', 'statistic', 'streamstat', 'dvr'] as const;

function verdictOf(stdout: string, what: string): string | undefined {
  return new RegExp(`^  ${what}\\s+(ok|FAILED)\\s+(.*)$`, 'm').exec(stdout)?.slice(1).join(' ');
}

/** `run --check --online` calls each enabled API once and tests the sink; `run --once --dry-run` prints
 * points. */
describe('run --check --online and run --once --dry-run', () => {
  let sim: Simulator;

  beforeAll(() => ensureBuilt());
  // A simulator per test: each test's process has its own quota journal, so calls of the tests before must not count
  // against its quota window on a shared simulator.
  beforeEach(async () => {
    sim = await startSimulator({ quotas: scaledQuotas(2000) });
  });
  afterEach(async () => {
    await sim.close();
  });

  const simConfig = (overrides: { baseUrl?: string; token?: string; sink?: Record<string, unknown> } = {}) =>
    feedbackConfig({
      baseUrl: overrides.baseUrl ?? sim.url,
      token: overrides.token ?? sim.token,
      accounts: sim.accounts.slice(0, 1),
      sim,
      apis: [...ALL_APIS],
      sink: overrides.sink,
    });

  it(
    'against the simulator: every API and the sink ok, one call per API, exit 0, nothing collected',
    async () => {
      const before = Object.fromEntries(API_NAMES.map((api) => [api, sim.stats.apis[api].requests]));
      const cfg = simConfig();
      const exit = await runCli(
        ['run', '--config', cfg.path, '--check', '--online'],
        {},
        { killAfterMs: PROCESS_LIMIT_MS },
      ).exited;
      expect(exit.code, exit.stdout + exit.stderr).toBe(0);
      for (const api of ALL_APIS) expect(verdictOf(exit.stdout, `api ${api}`), api).toMatch(/^ok /);
      expect(verdictOf(exit.stdout, 'sink')).toBe(`ok ${cfg.pointsPath} is writable`);
      expect(exit.stdout).toContain('online check: all 5 passed');
      expect(sim.stats.apis.metrics.requests - before.metrics!).toBe(1);
      expect(sim.stats.apis.dvr.requests - before.dvr!).toBe(1);
      for (const api of ['statistic', 'streamstat'] as const) {
        const calls = sim.stats.apis[api].requests - before[api]!;
        expect(calls, api).toBeGreaterThanOrEqual(1);
        expect(calls, api).toBeLessThanOrEqual(2); // the newest window: one call, two if the server pages it
      }
      expect(existsSync(cfg.pointsPath)).toBe(false);
      expect(readCheckpoints(cfg.stateDir).size).toBe(0);
    },
    PROCESS_LIMIT_MS,
  );

  it(
    'a wrong base URL (unused port, .invalid host): every API FAILED with the reason, exit 1, after one attempt each',
    async () => {
      const port = await freePort();
      for (const [baseUrl, reason] of [
        [`http://127.0.0.1:${port}`, 'ECONNREFUSED'],
        ['http://cdn-collector-test.invalid', 'ENOTFOUND'],
      ] as const) {
        const cfg = simConfig({ baseUrl });
        const exit = await runCli(
          ['run', '--config', cfg.path, '--check', '--online'],
          {},
          { killAfterMs: PROCESS_LIMIT_MS },
        ).exited;
        expect(exit.code, exit.stdout + exit.stderr).toBe(1);
        for (const api of ALL_APIS)
          expect(verdictOf(exit.stdout, `api ${api}`), `${api} ${baseUrl}`).toMatch(
            new RegExp(`^FAILED .*failed: ${reason}$`),
          );
        expect(verdictOf(exit.stdout, 'sink')).toMatch(/^ok /);
        expect(exit.stdout).toContain('online check: 4 of 5 FAILED');
      }
    },
    PROCESS_LIMIT_MS,
  );

  it(
    "a server that resets every connection: one attempt per API, not the limiter's minutes of retries",
    async () => {
      const resetting = await loopbackServer((req) => void req.socket.destroy());
      try {
        const cfg = simConfig({ baseUrl: resetting.url });
        const exit = await runCli(
          ['run', '--config', cfg.path, '--check', '--online'],
          {},
          { killAfterMs: PROCESS_LIMIT_MS },
        ).exited;
        expect(exit.code, exit.stdout + exit.stderr).toBe(1);
        for (const api of ALL_APIS) expect(verdictOf(exit.stdout, `api ${api}`), api).toMatch(/^FAILED .*NetworkError/);
        const paths = resetting.requests.map((r) => r.url.split('?')[0]!.split('/').slice(0, 3).join('/')).sort();
        // The DVR API lives under /app/dvr-net; the inventory (the configured accounts' check) is read once as well.
        expect(paths).toEqual(['/app/dvr-net', '/app/inventory', '/app/metrics', '/app/statistic', '/app/streamstat']);
      } finally {
        await resetting.close();
      }
    },
    PROCESS_LIMIT_MS,
  );

  it(
    'a wrong token: every API FAILED with the refusal, exit 1, the token never printed',
    async () => {
      const cfg = simConfig({ token: 'not-the-token-0123456789' });
      const exit = await runCli(
        ['run', '--config', cfg.path, '--check', '--online'],
        {},
        { killAfterMs: PROCESS_LIMIT_MS },
      ).exited;
      expect(exit.code, exit.stdout + exit.stderr).toBe(1);
      for (const api of ALL_APIS) expect(verdictOf(exit.stdout, `api ${api}`), api).toMatch(/^FAILED .*HTTP 40[13]/);
      expect(exit.stdout + exit.stderr).not.toContain('not-the-token-0123456789');
    },
    PROCESS_LIMIT_MS,
  );

  it(
    'a database that is down: the sink FAILED with ECONNREFUSED, the APIs ok, exit 1',
    async () => {
      const port = await freePort();
      const cfg = simConfig({ sink: { type: 'influx-v1', url: `http://127.0.0.1:${port}`, database: 'cdn' } });
      const exit = await runCli(
        ['run', '--config', cfg.path, '--check', '--online'],
        {},
        { killAfterMs: PROCESS_LIMIT_MS },
      ).exited;
      expect(exit.code, exit.stdout + exit.stderr).toBe(1);
      expect(verdictOf(exit.stdout, 'sink')).toMatch(/^FAILED .*ECONNREFUSED/);
      expect(verdictOf(exit.stdout, 'api metrics')).toMatch(/^ok /);
      expect(exit.stdout).toContain('online check: 1 of 5 FAILED');
    },
    PROCESS_LIMIT_MS,
  );

  describe.skipIf(serverSkipReason(INFLUXD_BIN) !== undefined)('InfluxDB 1.6.7', () => {
    let influx: InfluxV1Server;
    // biome-ignore lint/suspicious/noDuplicateTestHooks: a nested describe's (describe.skipIf) own hook
    beforeAll(async () => {
      influx = await startInfluxV1();
    });
    afterAll(async () => {
      await influx?.stop();
    });

    it(
      'a missing database FAILS the sink check; once created, it passes; no point is written by the check',
      async () => {
        const cfg = simConfig({ sink: { type: 'influx-v1', url: influx.url, database: 'cdn_check' } });
        const missing = await runCli(
          ['run', '--config', cfg.path, '--check', '--online'],
          {},
          { killAfterMs: PROCESS_LIMIT_MS },
        ).exited;
        expect(missing.code, missing.stdout + missing.stderr).toBe(1);
        expect(verdictOf(missing.stdout, 'sink')).toMatch(/^FAILED database cdn_check not found/);

        await influx.query('CREATE DATABASE cdn_check');
        const present = await runCli(
          ['run', '--config', cfg.path, '--check', '--online'],
          {},
          { killAfterMs: PROCESS_LIMIT_MS },
        ).exited;
        expect(present.code, present.stdout + present.stderr).toBe(0);
        expect(verdictOf(present.stdout, 'sink')).toBe('ok database cdn_check: an empty write request was accepted');
        expect(await influx.series('SHOW MEASUREMENTS', 'cdn_check')).toEqual([]);
      },
      2 * PROCESS_LIMIT_MS,
    );
  });

  it(
    '--once --dry-run prints the newest window of every job as line protocol; writes nothing, no checkpoint',
    async () => {
      const cfg = simConfig();
      const exit = await runCli(
        ['run', '--config', cfg.path, '--once', '--dry-run'],
        {},
        { killAfterMs: PROCESS_LIMIT_MS },
      ).exited;
      expect(exit.code, exit.stderr).toBe(0);
      const lines = exit.stdout.trim().split('\n');
      expect(
        lines.every((l) => /^cdn_[a-z_]+,.+ \d+$/.test(l)),
        exit.stdout.slice(0, 2000),
      ).toBe(true);
      for (const m of ['cdn_metrics', 'cdn_traffic', 'cdn_dvr'])
        expect(
          lines.some((l) => l.startsWith(`${m},`)),
          m,
        ).toBe(true);
      expect(exit.stderr).toMatch(
        /dry run: (\d+) of \1 jobs? answered, [1-9]\d* points? printed; nothing written, no checkpoint changed/,
      );
      expect(existsSync(cfg.pointsPath)).toBe(false);
      expect(readCheckpoints(cfg.stateDir).size).toBe(0);
    },
    PROCESS_LIMIT_MS,
  );
});
