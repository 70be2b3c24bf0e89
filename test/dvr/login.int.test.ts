import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startDvrFixture, type DvrFixture } from './helpers.js';

/** `dvr` and `api` take the same token sources as `run`: a username with a password (env or file) logs in once. */
const LOGIN = { username: 'ops@example', password: 'dvr-login-password-7' };
let f: DvrFixture;
beforeAll(async () => {
  f = await startDvrFixture({ login: { ...LOGIN } });
});
afterAll(() => f.close());

describe('dvr and api with a username and password', () => {
  it('dvr get logs in once with CDN_USERNAME and CDN_PASSWORD, and never prints the password', async () => {
    const before = f.sim.logins;
    const run = await runCli(['dvr', 'get', 'acme', 'live/main', '--json'], {
      CDN_BASE_URL: f.sim.url,
      CDN_USERNAME: LOGIN.username,
      CDN_PASSWORD: LOGIN.password,
    }).exited;
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(await f.dvr.get('acme', 'live/main'));
    expect(f.sim.logins - before).toBe(1);
    expect(run.stdout).not.toContain(LOGIN.password);
  });

  it('api takes --username with --password-file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dvr-login-')), 'password');
    writeFileSync(file, `${LOGIN.password}\n`);
    const run = await runCli(
      ['api', 'dvr', '/acme/streams/live/main', '--username', LOGIN.username, '--password-file', file],
      {
        CDN_BASE_URL: f.sim.url,
      },
    ).exited;
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ stream_name: 'live/main' });
  });

  it('a username without a password, or a wrong password, is one clear line and a non-zero exit', async () => {
    const missing = await runCli(['dvr', 'get', 'acme', 'live/main'], {
      CDN_BASE_URL: f.sim.url,
      CDN_USERNAME: LOGIN.username,
    }).exited;
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/a login needs a password: set CDN_PASSWORD or pass --password-file/);
    // Refused logins are counted in the state.dir of -c (else ./state of the working directory).
    const dir = mkdtempSync(join(tmpdir(), 'dvr-login-state-'));
    writeFileSync(join(dir, 'collector.yaml'), `state:\n  dir: ${join(dir, 'state')}\n`);
    const wrong = await runCli(['dvr', 'get', 'acme', 'live/main', '-c', join(dir, 'collector.yaml')], {
      CDN_BASE_URL: f.sim.url,
      CDN_USERNAME: LOGIN.username,
      CDN_PASSWORD: 'not-the-password',
    }).exited;
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/login POST .*\/app\/oauth\/v1\/token\/ failed: HTTP 401/);
    expect(wrong.stderr).not.toContain('not-the-password');
  });

  it('api with a wrong password says the credentials were refused, the tries left and the fix', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'api-login-state-'));
    writeFileSync(join(dir, 'collector.yaml'), `state:\n  dir: ${join(dir, 'state')}\n`);
    const wrong = await runCli(['api', 'dvr', '/acme/streams/live/main', '-c', join(dir, 'collector.yaml')], {
      CDN_BASE_URL: f.sim.url,
      CDN_USERNAME: LOGIN.username,
      CDN_PASSWORD: 'not-the-password',
    }).exited;
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`the service refused the credentials of ${LOGIN.username}`);
    expect(wrong.stderr).toMatch(/at most 6 more wrong passwords before the service bans the account for 3 h/);
    expect(wrong.stderr).toContain('fix the password (CDN_PASSWORD');
    expect(wrong.stderr).not.toContain('not-the-password');
    expect(JSON.parse(readFileSync(join(dir, 'state', 'login-refusals.json'), 'utf8'))).toMatchObject({
      usernames: { [LOGIN.username]: { refused: 1 } },
    });
  });
});
