import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfigFile } from '../../src/config/loader.js';
import { runCli } from '../helpers/cli.js';
import { writeSimConfig } from '../helpers/collector.js';
import { useSimulator } from '../helpers/sim.js';

const dir = mkdtempSync(join(tmpdir(), 'cfgprint-'));
const SECRETS = { token: 'print-api-token-1', influx: 'print-influx-token-2', url: 'urlpass-3456' };
const ENV_ONLY = {
  CDN_BASE_URL: `http://ops:${SECRETS.url}@127.0.0.1:1`,
  CDN_TOKEN: SECRETS.token,
  CDN_ACCOUNTS: 'acme,globex',
  INFLUX_URL: 'http://127.0.0.1:8086',
  INFLUX_TOKEN: SECRETS.influx,
  INFLUX_ORG: 'ops',
  INFLUX_BUCKET: 'cdn',
};

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('config --print (a real process)', () => {
  it('prints the effective config of the env alone: defaults filled, durations as text, secrets redacted', async () => {
    const r = await runCli(['config', '--print'], ENV_ONLY).exited;
    expect(r.code, r.stderr).toBe(0);
    for (const secret of Object.values(SECRETS)) expect(r.stdout).not.toContain(secret);
    const printed = parse(r.stdout) as Record<string, Record<string, unknown>>;
    expect(printed.api).toMatchObject({ baseUrl: 'http://127.0.0.1:1', token: '<redacted>', timeout: '30s' });
    expect(printed.sink).toMatchObject({ type: 'influx-v2', token: '<redacted>', org: 'ops', bucket: 'cdn' });
    expect(printed.quotas!.statistic).toEqual({ calls: 5, period: '1m' });
    expect(printed.state).toMatchObject({ horizon: '7d' });
  });

  it('what it prints loads back to the same configuration (the secrets given again)', async () => {
    const r = await runCli(['config', '--print'], ENV_ONLY).exited;
    const printed = file('printed.yaml', r.stdout);
    const secretsAgain = { CDN_TOKEN: SECRETS.token, INFLUX_TOKEN: SECRETS.influx, CDN_BASE_URL: 'http://127.0.0.1:1' };
    expect(loadConfigFile(printed, secretsAgain)).toEqual(
      loadConfigFile(undefined, { ...ENV_ONLY, CDN_BASE_URL: 'http://127.0.0.1:1' }),
    );
  });

  it('precedence: flag > environment > config file > default (log level, format, listener)', async () => {
    const withFile = file('levels.yaml', 'log: { level: error, format: pretty }\nhttp: { port: 1000 }\n');
    const print = async (args: string[], env: Record<string, string>) => {
      const r = await runCli(['config', '--print', ...args], { ...ENV_ONLY, ...env }).exited;
      expect(r.code, r.stderr).toBe(0);
      const c = parse(r.stdout) as { log: { level: string; format?: string }; http: { host: string; port?: number } };
      return [c.log.level, c.log.format, c.http.host, c.http.port];
    };
    expect(await print([], {})).toEqual(['info', undefined, '127.0.0.1', undefined]);
    expect(await print(['-c', withFile], {})).toEqual(['error', 'pretty', '127.0.0.1', 1000]);
    expect(
      await print(['-c', withFile], { LOG_LEVEL: 'warn', LOG_FORMAT: 'json', CDN_LISTEN: '0.0.0.0:2000' }),
    ).toEqual(['warn', 'json', '0.0.0.0', 2000]);
    expect(
      await print(['-c', withFile, '--log-level', 'debug', '--log-format', 'pretty', '--listen', '127.0.0.2:3000'], {
        LOG_LEVEL: 'warn',
        LOG_FORMAT: 'json',
        CDN_LISTEN: '0.0.0.0:2000',
      }),
    ).toEqual(['debug', 'pretty', '127.0.0.2', 3000]);
  });

  it('with nothing configured: exit 2 and every missing field with its variable', async () => {
    const r = await runCli(['config', '--print']).exited;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(
        /^error: config: 3 problems\n {2}api: required: .*CDN_BASE_URL.*\n/.source +
          / {2}accounts: required \(set CDN_ACCOUNTS\)\n {2}sink: required: .*INFLUX_URL.*\n$/.source,
      ),
    );
  });
});

describe('run with the environment alone', () => {
  const s = useSimulator();

  it('run --check needs no file', async () => {
    const r = await runCli(['run', '--check'], { ...ENV_ONLY, CDN_BASE_URL: s.sim.url }).exited;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('configuration from the environment: valid\n');
  });

  it('a file with several mistakes: exit 2, all listed, a bare-number duration told to take a unit', async () => {
    const bad = file(
      'bad.yaml',
      'api: { baseUrl: http://127.0.0.1:1, timeout: 30 }\naccounts: []\nsink: { type: file, path: "-" }\n',
    );
    const r = await runCli(['run', '--config', bad, '--check']).exited;
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('api.timeout: 30 has no unit: write 30s');
    expect(r.stderr).toContain('api.token: exactly one of api.token (CDN_TOKEN)');
    expect(r.stderr).toContain('accounts: must list at least one account, or be auto');
  });

  it('--log-format pretty writes text logs; into a pipe without colours', async () => {
    const workDir = mkdtempSync(join(dir, 'once-'));
    const config = writeSimConfig(workDir, s.sim, {
      jobs: { dvr: { enabled: false }, statistic: { enabled: false }, streamstat: { enabled: false } },
    });
    const pretty = await runCli(['run', '--config', config, '--once', '--log-format', 'pretty']).exited;
    expect(pretty.code, pretty.stderr).toBe(0);
    expect(pretty.stderr).toMatch(/INFO.*pass/);
    expect(pretty.stderr).not.toMatch(/^\{"level"/m);
    expect(pretty.stderr).not.toMatch(/\x1b\[/);
    const json = await runCli(['run', '--config', config, '--once'], { LOG_FORMAT: 'json', LOG_LEVEL: 'warn' }).exited;
    expect(json.code, json.stderr).toBe(0);
    // warn from the environment: the info lines of each pass are not written.
    expect(json.stderr).not.toMatch(/"event":"job_pass"/);
    for (const line of json.stderr.split('\n').filter(Boolean)) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });
});

describe('status from the environment alone (a real process)', () => {
  it('needs no config file: the jobs of the accounts in the environment (exit 1: no pass has run yet)', async () => {
    const r = await runCli(['status', '--json'], ENV_ONLY).exited;
    const report = JSON.parse(r.stdout) as { jobs: Array<{ key: string; configured: boolean }>; problems: string[] };
    expect(report.problems).toEqual([expect.stringMatching(/does not exist \(no pass has run yet\)$/)]);
    expect(r.code, r.stderr).toBe(1);
    expect(report.jobs.map((j) => j.key)).toEqual(
      expect.arrayContaining(['metrics/acme', 'metrics/globex', 'statistic/*/total']),
    );
    for (const secret of Object.values(SECRETS)) expect(r.stdout + r.stderr).not.toContain(secret);
  });
});
