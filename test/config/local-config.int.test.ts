import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config/loader.js';
import { useSimulator } from '../helpers/sim.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const CONFIG = join(ROOT, 'config/collector.local.yaml');

/**
 * The README's daemon block starts `sim --port 8080 --seed 42` and copies config/collector.local.yaml: the file must
 * name that simulator (its URL, the token of seed 42, its accounts and streams), or the first five minutes of a new
 * user fail with 401s or unknown accounts.
 */
describe('config/collector.local.yaml: the README daemon block against the simulator', () => {
  const s = useSimulator({ seed: 42 });

  it('is the simulator the README starts: URL, token of seed 42, its accounts and DVR streams', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('npx cdn-collector sim --port 8080 --seed 42 &');
    expect(readme).toContain('cp config/collector.local.yaml collector.yaml');
    const config = loadConfigFile(CONFIG, {});
    expect(config.api.baseUrl).toBe('http://127.0.0.1:8080');
    expect(config.api.token).toBe(s.sim.token);
    expect(config.accounts).toEqual(s.sim.accounts);
    for (const stream of config.jobs.dvr.streams) expect(s.sim.streams).toContainEqual(stream);
  });

  it('passes run --check --online against it (port moved by CDN_BASE_URL only), writing under the cwd', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'local-config-'));
    const env = {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CDN_|INFLUX_)/.test(k))),
      CDN_BASE_URL: s.sim.url,
    };
    const { stdout } = await run(
      process.execPath,
      [join(ROOT, 'bin/cdn-collector.js'), 'run', '--config', CONFIG, '--check', '--online'],
      { cwd, env },
    );
    expect(stdout).toMatch(/all 5 passed/);
    expect(existsSync(join(cwd, 'state'))).toBe(true);
  });
});
