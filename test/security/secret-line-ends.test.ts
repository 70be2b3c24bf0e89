/**
 * Secrets as deployments hand them over: `kubectl create secret generic --from-file` and `echo >` leave a line end
 * after the value, and deploy/k8s maps such a Secret to CDN_TOKEN / CDN_PASSWORD. The line end is cut from every
 * secret that comes from the environment or a file; a control character inside one is a config error naming the
 * variable, never quoting the secret.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tokenProviderFor } from '../../src/auth/from-config.js';
import { passwordFileReader } from '../../src/auth/password-file.js';
import { FileTokenProvider } from '../../src/auth/token-file.js';
import { ManualClock } from '../../src/clock.js';
import { resolveConnection } from '../../src/cli/common/connection.js';
import { ConfigError, parseConfig } from '../../src/config/loader.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { problemsOf } from '../helpers/config-error.js';

const BASE = { accounts: ['acme'], sink: { type: 'file', path: '-' } };
const LOGIN = { username: 'ops@example', password: 'correct horse battery' };

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('a secret from the environment', () => {
  it('CDN_TOKEN, CDN_PASSWORD, INFLUX_TOKEN lose the line end a secret file leaves', () => {
    const env = {
      CDN_BASE_URL: 'http://127.0.0.1:1\n',
      CDN_TOKEN: 'cdn1_env-token-123456\n',
      INFLUX_URL: 'http://127.0.0.1:8086',
      INFLUX_TOKEN: 'influx-token-123456\r\n',
      INFLUX_ORG: 'org',
      INFLUX_BUCKET: 'cdn',
    };
    const c = parseConfig({ accounts: ['acme'] }, env);
    expect(c.api.token).toBe('cdn1_env-token-123456');
    expect(c.api.baseUrl).toBe('http://127.0.0.1:1');
    expect(c.sink).toMatchObject({ type: 'influx-v2', token: 'influx-token-123456' });
    const login = parseConfig(BASE, { CDN_BASE_URL: 'http://x', CDN_USERNAME: 'ops\n', CDN_PASSWORD: 'pass word\n' });
    expect(login.api).toMatchObject({ username: 'ops', password: 'pass word' });
  });

  it('a ${VAR} in the config file loses it too', async () => {
    const { loadConfigFile } = await import('../../src/config/loader.js');
    const dir = mkdtempSync(join(tmpdir(), 'secret-ends-'));
    const path = join(dir, 'c.yaml');
    writeFileSync(
      path,
      'api: { baseUrl: "http://x", token: "${MY_TOKEN}" }\naccounts: [acme]\nsink: { type: file, path: "-" }\n',
    );
    expect(loadConfigFile(path, { MY_TOKEN: 'cdn1_file-token-123456\n' }).api.token).toBe('cdn1_file-token-123456');
  });

  it('a control character inside is a config error naming the variable, never the secret', () => {
    const token = 'cdn1_first-half\nsecond-half';
    const problems = problemsOf(() => parseConfig(BASE, { CDN_BASE_URL: 'http://x', CDN_TOKEN: token }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^api\.token: .*\(from CDN_TOKEN\)$/);
    expect(problems[0]).not.toContain('first-half');
    const password = problemsOf(() =>
      parseConfig(BASE, { CDN_BASE_URL: 'http://x', CDN_USERNAME: 'ops', CDN_PASSWORD: 'pass\tword-123' }),
    );
    expect(password[0]).toMatch(/^api\.password: .*\(from CDN_PASSWORD\)$/);
    expect(password[0]).not.toContain('word-123');
  });

  it('a token with a non-ASCII letter is refused as well: no header can carry it', () => {
    const problems = problemsOf(() => parseConfig(BASE, { CDN_BASE_URL: 'http://x', CDN_TOKEN: 'cdn1_tökenvalue' }));
    expect(problems[0]).toMatch(/^api\.token: .*header.*\(from CDN_TOKEN\)$/);
  });

  it('the login sends CDN_PASSWORD without its line end: the service takes it (it refused it before)', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 20, 12));
    sim = await startSimulator({ clock, quotas: NO_QUOTAS, login: { ...LOGIN } });
    const env = { CDN_BASE_URL: sim.url, CDN_USERNAME: LOGIN.username, CDN_PASSWORD: `${LOGIN.password}\n` };
    const config = parseConfig(BASE, env);
    const tokens = tokenProviderFor(config.api, {
      clock,
      onEvent: () => {},
      stateDir: mkdtempSync(join(tmpdir(), 'secret-state-')),
    });
    await expect(tokens.current()).resolves.toMatch(/^sim-login-/);
    expect(sim.loginService?.refused).toBe(0);
  });
});

describe('a secret from a file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'secret-files-'));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('the password file: its first line without CR LF; a control character inside is refused', () => {
    expect(passwordFileReader(file('crlf', 'pass word-123\r\n'))()).toBe('pass word-123');
    expect(passwordFileReader(file('cr', 'pass word-123\r'))()).toBe('pass word-123');
    expect(() => passwordFileReader(file('tab', 'pass\tword-123\n'))).toThrow(/control character/);
    const config = { ...BASE, api: { baseUrl: 'http://x', username: 'ops', passwordFile: join(dir, 'tab') } };
    expect(() =>
      tokenProviderFor(parseConfig(config, {}).api, { clock: new ManualClock(0), onEvent: () => {}, stateDir: dir }),
    ).toThrow(ConfigError);
  });

  it('the token file: a token no header can carry is not used', async () => {
    const events: string[] = [];
    const tokens = new FileTokenProvider(file('token', 'cdn1_tök-123456\n'), (e) => events.push(e.type));
    await expect(tokens.current()).rejects.toMatchObject({ code: 'CDN_ERR_TOKEN_FILE' });
    expect(events).toEqual(['failed']);
  });
});

describe('the dvr and api commands read the same variables alike', () => {
  const flags = { baseUrl: 'http://127.0.0.1:1' };

  it('CDN_TOKEN loses its line end; one holding a line break inside is a usage error naming it', async () => {
    const { token } = resolveConnection(flags, { CDN_TOKEN: 'cdn1_env-token-123456\n' }, () => {});
    await expect(token.current()).resolves.toBe('cdn1_env-token-123456');
    const err = (() => {
      try {
        resolveConnection(flags, { CDN_TOKEN: 'cdn1_first-half\nsecond-half' }, () => {});
      } catch (e) {
        return e as Error & { exitCode?: number };
      }
    })();
    expect(err?.exitCode).toBe(2);
    expect(err?.message).toMatch(/^CDN_TOKEN /);
    expect(err?.message).not.toContain('first-half');
  });
});
