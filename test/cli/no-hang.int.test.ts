/**
 * Real CLI processes against a hand-rolled login: a token no header can carry ends `run --once` with its verdict (it
 * used to end with exit 13, a pass never settled), the daemon logs in again after the backoff and sends nothing with
 * such a token, and a stop abandons a login the service leaves hanging (it used to wait for `api.timeout`).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { LOGIN_PATH } from '../../src/spec/login.js';
import { runCli, waitForOutput } from '../helpers/cli.js';
import { onlyJobs } from '../helpers/collector.js';
import { json, loopbackServer, type LoopbackServer } from '../helpers/loopback.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A config of account acme logging in at `baseUrl`; a long api.timeout, so only an abandoned login ends at once. */
function configAt(baseUrl: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'no-hang-'));
  const path = join(dir, 'collector.yaml');
  const config = {
    api: { baseUrl, username: 'ops@example', password: 'correct horse battery', timeout: '10m' },
    accounts: ['acme'],
    // A pass every 3 s: the daemon asks for a token again soon after the login's backoff.
    jobs: onlyJobs({ metrics: { byResource: false, schedule: '*/3 * * * * *' } }),
    sink: { type: 'file', path: join(dir, 'out.lp') },
    state: { dir: join(dir, 'state') },
  };
  writeFileSync(path, stringify(config));
  return path;
}

const loginsSeen = (s: LoopbackServer) => s.requests.filter((r) => r.url === LOGIN_PATH).length;
const callsSeen = (s: LoopbackServer) => s.requests.filter((r) => r.url !== LOGIN_PATH).length;

/** A login answering 200 with a token holding a line break; every other path an empty list. */
async function brokenTokenLogin(): Promise<LoopbackServer> {
  server = await loopbackServer((req, res) => {
    if (req.url === LOGIN_PATH) return json(res, { status: 200, token: 'cdn1_first-half\nsecond-half', lifetime: 1e7 });
    json(res, []);
  });
  return server;
}

describe('a login that hands out a token no header can carry', () => {
  it('run --once ends with its verdict, nothing sent (it used to end with exit 13 after a minute)', async () => {
    const s = await brokenTokenLogin();
    const r = await runCli(['run', '--once', '--config', configAt(s.url), '--log-format', 'json']).exited;
    expect(r.code, r.stderr).not.toBe(13);
    expect(r.stdout).toMatch(/^once: FAILED/m);
    expect(r.stderr).toContain('"code":"CDN_ERR_LOGIN"');
    expect(r.stderr + r.stdout).not.toContain('second-half');
    expect(callsSeen(s)).toBe(0);
  }, 90_000);

  it('the daemon logs in again after the backoff, sends nothing, and stops at once on SIGTERM', async () => {
    const s = await brokenTokenLogin();
    const run = runCli(['run', '--config', configAt(s.url), '--log-format', 'json'], {}, { killAfterMs: 80_000 });
    await waitForOutput(run, 'stderr', /"code":"CDN_ERR_LOGIN"/);
    // The failed logins are told once, then summed up each minute: the second login is seen at the service.
    await expect.poll(() => loginsSeen(s), { timeout: 60_000, interval: 200 }).toBeGreaterThanOrEqual(2);
    run.child.kill('SIGTERM');
    const r = await run.exited;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('"event":"stopped"');
    expect(callsSeen(s)).toBe(0);
  }, 90_000);
});

describe('a stop while a login hangs', () => {
  it('abandons the login: the daemon stops at once, not after api.timeout', async () => {
    let loginArrived: () => void = () => {};
    const arrived = new Promise<void>((resolve) => (loginArrived = resolve));
    server = await loopbackServer(() => loginArrived()); // takes the login and never answers
    const run = runCli(['run', '--config', configAt(server.url), '--log-format', 'json'], {}, { killAfterMs: 80_000 });
    await arrived;
    run.child.kill('SIGTERM');
    const r = await run.exited;
    expect(r.signal, 'stopped by itself, not killed by the test').toBeNull();
    // The login may be the start's check of the configured accounts (a stop during start exits 143 at once) or the
    // daemon's first one (a graceful stop, exit 0): either way not after api.timeout.
    expect([0, 143], r.stderr).toContain(r.code);
  }, 90_000);
});
