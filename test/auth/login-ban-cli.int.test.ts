import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BAN_AFTER_REFUSALS } from '../../src/spec/login.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { runCli, type CliExit } from '../helpers/cli.js';
import { feedbackConfig, type FeedbackConfig } from '../ops/feedback-config.js';
import { ensureBuilt } from '../ops/entry.js';

/** Wait bound of a process (not an assertion). */
const PROCESS_LIMIT_MS = 60_000;
const LOGIN = { username: 'ops@example', password: 'the-right-password-7' };

/**
 * Every command that logs in counts refused logins in the state dir: a crash-looping `run --once` (or a cron job),
 * `api` and `dvr` on one state dir stop together after 3 refusals, well before the service's ban after 7, and say so
 * at once without a login. `--force-login` once the password is fixed resumes them; `status` shows the stop as
 * /healthz does (`auth`).
 */
describe('refused logins shared by processes on one state dir', { timeout: 4 * PROCESS_LIMIT_MS }, () => {
  let sim: Simulator;
  let cfg: FeedbackConfig;
  let passwordFile: string;

  beforeAll(async () => {
    ensureBuilt();
    sim = await startSimulator({ quotas: NO_QUOTAS, login: { ...LOGIN } });
    cfg = feedbackConfig({ baseUrl: sim.url, token: 'unused', accounts: sim.accounts.slice(0, 1) });
    passwordFile = join(cfg.dir, 'password');
    writeFileSync(passwordFile, 'a-typo\n');
    const api = { baseUrl: sim.url, username: LOGIN.username, passwordFile, timeout: '5s' };
    const { stringify, parse } = await import('yaml');
    const { readFileSync } = await import('node:fs');
    writeFileSync(cfg.path, stringify({ ...parse(readFileSync(cfg.path, 'utf8')), api }));
  });
  afterAll(() => sim.close());

  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, env, { killAfterMs: PROCESS_LIMIT_MS }).exited;
  const runOnce = (...extra: string[]) => cli(['run', '--config', cfg.path, '--once', ...extra]);
  const dvrGet = (env: Record<string, string>, ...extra: string[]) =>
    cli(['dvr', 'get', sim.streams[0]!.account, sim.streams[0]!.stream, '--json', '-c', cfg.path, ...extra], {
      CDN_BASE_URL: sim.url,
      CDN_USERNAME: LOGIN.username,
      ...env,
    });
  const status = async () => JSON.parse((await cli(['status', '--config', cfg.path, '--json'])).stdout);

  it('five restarts of `run --once`, then dvr, api, backfill, with a wrong password: 3 logins, never 7', async () => {
    const exits: CliExit[] = [];
    for (let i = 0; i < 5; i++) exits.push(await runOnce());
    const dvr = await dvrGet({ CDN_PASSWORD: 'another-typo' });
    const stream = `/${sim.streams[0]!.account}/streams/${sim.streams[0]!.stream}`;
    const api = await cli(['api', 'dvr', stream, '-c', cfg.path], {
      CDN_BASE_URL: sim.url,
      CDN_USERNAME: LOGIN.username,
      CDN_PASSWORD: 'a-typo',
    });
    const hourAgo = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000).toISOString();
    const backfill = await cli(['backfill', '--config', cfg.path, '--from', hourAgo]);
    expect(sim.loginService!.refused).toBe(3);
    expect(sim.loginService!.banned(sim.clock.now())).toBe(false);
    // The first three tried and failed their windows; the rest found the logins stopped: a config error, no login.
    for (const tried of exits.slice(0, 3)) expect(tried.code, tried.stderr).not.toBe(2);
    expect(exits[0]!.code).not.toBe(0);
    for (const stopped of [exits[3]!, exits[4]!, dvr, api, backfill]) {
      expect(stopped.code, stopped.stderr).toBe(2);
      expect(stopped.stderr).toContain(`logins of ${LOGIN.username} are stopped`);
      expect(stopped.stderr).toContain('--force-login');
    }
    expect(`${exits.map((e) => e.stderr).join('')}${dvr.stderr}`).not.toContain('a-typo');
    expect(BAN_AFTER_REFUSALS).toBeGreaterThan(sim.loginService!.refused);
  });

  it('status shows the stopped logins as /healthz names them (auth), text and --json', async () => {
    const report = await status();
    expect(report.failing.auth).toMatchObject({ failures: 3, username: LOGIN.username, stopped: true });
    const text = await cli(['status', '--config', cfg.path]);
    expect(text.stdout).toMatch(/^auth failing since \S+ \(3 refused logins of ops@example in a row; logins stopped/m);
  });

  it('--force-login with the fixed password logs in once and clears the count for every process', async () => {
    writeFileSync(passwordFile, `${LOGIN.password}\n`);
    const before = sim.logins;
    const forced = await dvrGet({ CDN_PASSWORD: LOGIN.password }, '--force-login');
    expect(forced.code, forced.stderr).toBe(0);
    expect(sim.logins - before).toBe(1);
    expect((await status()).failing.auth).toBeUndefined();
    const again = await runOnce();
    expect(again.code, again.stderr).toBe(0);
  });
});
