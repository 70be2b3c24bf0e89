import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfigFile } from '../../src/config/loader.js';
import { checkConfig } from '../../src/config/rules.js';
import { runCli } from '../helpers/cli.js';

const TOKEN = 'config-secret-token';
const dir = mkdtempSync(join(tmpdir(), 'badcfg-'));
writeFileSync(join(dir, 'a-file'), '');
const valid = {
  api: { baseUrl: 'http://127.0.0.1:9', token: TOKEN },
  accounts: ['acme'],
  sink: { type: 'file', path: join(dir, 'out.lp') },
  state: { dir: join(dir, 'state') },
};

/** Writes `config` to a file of its own and returns the path. */
function write(config: unknown): string {
  const path = join(dir, `c-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, JSON.stringify(config));
  return path;
}

/** What `run --check` does before it exits: load the file, then the cross-field checks; the error if any. */
function check(config: unknown): unknown {
  try {
    checkConfig(loadConfigFile(write(config), {}));
    return undefined;
  } catch (err) {
    return err;
  }
}

/** Bad configuration is refused before anything starts: exit 2, the field named, the token never echoed. */
describe('run --check on bad configuration', () => {
  it('the CLI exits 2 with one line naming the field, without the token', async () => {
    const { code, stdout, stderr } = await runCli([
      'run',
      '--config',
      write({ ...valid, api: { ...valid.api, tokn: 'x' } }),
      '--check',
    ]).exited;
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error: .*api.*tokn.*\n$/);
    expect(stdout + stderr).not.toContain(TOKEN);
  });

  it('accepts the valid base config', () => {
    expect(check(valid)).toBeUndefined();
  });

  it.each([
    ['an unknown key', { ...valid, api: { ...valid.api, tokn: 'x' } }, /api.*tokn/],
    ['a bad URL', { ...valid, api: { ...valid.api, baseUrl: 'not a url' } }, /api\.baseUrl/],
    ['a zero quota', { ...valid, quotas: { statistic: { calls: 0, period: '1m' } } }, /quotas\.statistic\.calls/],
    ['a negative quota', { ...valid, quotas: { metrics: { calls: -5, period: '1m' } } }, /quotas\.metrics\.calls/],
    ['a zero quota period', { ...valid, quotas: { dvr: { calls: 5, period: '0s' } } }, /quotas\.dvr\.period/],
    ['a metrics window over 10 minutes', { ...valid, jobs: { metrics: { window: '15m' } } }, /jobs\.metrics\.window/],
    ['a metrics window under 1 minute', { ...valid, jobs: { metrics: { window: '30s' } } }, /jobs\.metrics\.window/],
    [
      'a quota of 1e20 calls',
      { ...valid, quotas: { metrics: { calls: 1e20, period: '1m' } } },
      /quotas\.metrics\.calls/,
    ],
    ['a state.dir that is a file', { ...valid, state: { dir: join(dir, 'a-file') } }, /state\.dir/],
    ['a blank account', { ...valid, accounts: ['  '] }, /accounts\.0/],
  ])('%s is a ConfigError naming the field (exit 2)', (_name, config, field) => {
    const err = check(config);
    // main.ts maps a ConfigError to exit 2 (EXIT_USAGE), as the spawned run above shows.
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(field);
    expect((err as Error).message).not.toContain(TOKEN);
  });
});
