import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaledQuotas } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { runCli } from '../helpers/cli.js';
import { json, loopbackServer, type LoopbackServer } from '../helpers/loopback.js';
import { freePort } from '../helpers/servers.js';
import { ensureBuilt } from './entry.js';
import { feedbackConfig, waitForOutput, type FeedbackConfig } from './feedback-config.js';

/** Wait bound of a process (not an assertion): a daemon is stopped by the test well before. */
const PROCESS_LIMIT_MS = 60_000;

interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

function logLines(stderr: string): LogLine[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

/**
 * `run` says at once what it is doing and reports the first failure of each API at once (a wrong base
 * URL used to give ~5 minutes of silence while the limiter retried); `run --once` ends with a verdict and an exit code
 * that says which.
 */
describe('run: feedback within seconds', { timeout: PROCESS_LIMIT_MS }, () => {
  let sim: Simulator;
  let refusing: LoopbackServer;
  let badRequest: LoopbackServer;

  beforeAll(async () => {
    ensureBuilt();
    sim = await startSimulator({ quotas: scaledQuotas(2000) });
    refusing = await loopbackServer((_req, res) => json(res, { message: 'invalid token' }, 401));
    badRequest = await loopbackServer((_req, res) => json(res, { message: 'bad parameter' }, 400));
  });
  afterAll(async () => {
    await Promise.all([sim.close(), refusing.close(), badRequest.close()]);
  });

  /** Starts the daemon, waits for the error line of the metrics API, stops it with SIGTERM; returns its log. */
  async function daemonUntilFirstFailure(baseUrl: string, token = sim.token, onFailure: () => void = () => {}) {
    const cfg = feedbackConfig({ baseUrl, token, accounts: sim.accounts.slice(0, 1) });
    const run = runCli(['run', '--config', cfg.path], {}, { killAfterMs: PROCESS_LIMIT_MS });
    let stderr = '';
    run.child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    await waitForOutput(() => stderr, /"level":50[^\n]*"api":"metrics"[^\n]*\n/, run.exited);
    onFailure();
    run.child.kill('SIGTERM');
    const exit = await run.exited;
    return { cfg, exit, lines: logLines(exit.stderr) };
  }

  /** `run --once` with the config, to its end. */
  const runOnce = (cfg: FeedbackConfig) =>
    runCli(['run', '--config', cfg.path, '--once'], {}, { killAfterMs: PROCESS_LIMIT_MS }).exited;

  it('first says what it does (no secret), then names API, endpoint and ECONNREFUSED of an unused port', async () => {
    const port = await freePort();
    const { cfg, exit, lines } = await daemonUntilFirstFailure(`http://127.0.0.1:${port}`);
    expect(exit.code, exit.stderr).toBe(0);
    expect(lines[0]).toMatchObject({
      event: 'starting',
      config: cfg.path,
      apis: ['metrics'],
      sink: `file: ${cfg.pointsPath}`,
      stateDir: cfg.stateDir,
    });
    expect(exit.stderr).not.toContain(sim.token);
    const failure = lines.find((l) => l.level === 50)!;
    expect(failure).toMatchObject({ api: 'metrics', reason: 'ECONNREFUSED', code: 'CDN_ERR_NETWORK' });
    expect(failure.endpoint).toContain(`127.0.0.1:${port}/app/metrics/`);
    expect(failure.event).toBe('failing');
    // Reported once, not once per retry.
    expect(lines.filter((l) => l.level === 50 && l.api === 'metrics')).toHaveLength(1);
  });

  it('reports ENOTFOUND for a host that does not exist', async () => {
    const { exit, lines } = await daemonUntilFirstFailure('http://cdn-collector-test.invalid');
    expect(exit.code, exit.stderr).toBe(0);
    const failure = lines.find((l) => l.level === 50)!;
    expect(failure).toMatchObject({ api: 'metrics', reason: 'ENOTFOUND' });
    expect(failure.msg).toContain('check api.baseUrl');
  });

  it('reports a refused token (401) at the first call, before more calls are spent', async () => {
    let seenAtFailure = -1;
    const { exit, lines } = await daemonUntilFirstFailure(
      refusing.url,
      'wrong-token',
      () => (seenAtFailure = refusing.requests.length),
    );
    expect(exit.code, exit.stderr).toBe(0);
    expect(lines.find((l) => l.level === 50)).toMatchObject({ api: 'metrics', reason: 'HTTP 401' });
    // One job, one call per pass (passes each second): the line came with the first answers, not after minutes.
    expect(seenAtFailure).toBeGreaterThanOrEqual(1);
    expect(seenAtFailure).toBeLessThanOrEqual(3);
  });

  it('--once against the simulator: a verdict line, exit 0', async () => {
    const cfg = feedbackConfig({
      baseUrl: sim.url,
      token: sim.token,
      accounts: sim.accounts.slice(0, 1),
      sim,
      apis: ['metrics', 'dvr'],
    });
    const exit = await runOnce(cfg);
    expect(exit.code, exit.stderr).toBe(0);
    expect(logLines(exit.stderr)[0]).toMatchObject({ event: 'collecting_once', apis: ['metrics', 'dvr'] });
    const verdict =
      /^once: ok: (\d+) windows? collected, 0 set aside, 0 failed; (\d+) points?; (\d+) calls?, 0 answered 429$/m.exec(
        exit.stdout,
      );
    expect(verdict, exit.stdout).not.toBeNull();
    const [collected, points, calls] = verdict!.slice(1).map(Number);
    expect(collected).toBeGreaterThanOrEqual(2); // metrics windows and a DVR snapshot
    expect(points).toBeGreaterThan(0);
    expect(calls).toBeGreaterThanOrEqual(2);
  });

  it('--once with a refused token: FAILED, the windows left pending, exit 4, the refusal named on stderr', async () => {
    const cfg = feedbackConfig({ baseUrl: sim.url, token: 'wrong-token', accounts: sim.accounts.slice(0, 1), sim });
    const exit = await runOnce(cfg);
    expect(exit.code, exit.stdout + exit.stderr).toBe(4);
    expect(exit.stdout).toMatch(
      /^once: FAILED: 0 windows collected, 0 set aside, [1-9]\d* failed in 1 job; 0 points; 1 call, 0 answered 429$/m,
    );
    // The simulator refuses an unknown token with 403, as the spec allows.
    expect(logLines(exit.stderr).find((l) => l.level === 50)).toMatchObject({
      api: 'metrics',
      reason: expect.stringMatching(/^HTTP 40[13]$/),
    });
  });

  it('--once where every window is refused for good (400): SET ASIDE, exit 3', async () => {
    const cfg = feedbackConfig({ baseUrl: badRequest.url, token: 't', accounts: ['acme'] });
    const exit = await runOnce(cfg);
    expect(exit.code, exit.stdout + exit.stderr).toBe(3);
    expect(exit.stdout).toMatch(
      /^once: SET ASIDE: 0 windows collected, [1-9]\d* set aside, 0 failed; 0 points; [1-9]\d* calls?, 0 answered/m,
    );
  });

  it('run --help documents the exit codes; --online without --check and --dry-run without --once exit 2', async () => {
    const help = await runCli(['run', '--help']).exited;
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(
      /Exit codes:[\s\S]*\b3\s+--once: some windows were set aside[\s\S]*\b4\s+--once: some windows failed/,
    );
    for (const flag of ['--online', '--dry-run']) {
      const bad = await runCli(['run', '--config', 'x.yaml', flag]).exited;
      expect(bad.code, flag).toBe(2);
      expect(bad.stderr).toContain(`${flag} goes with`);
    }
  });
});
