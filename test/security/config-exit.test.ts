import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../chaos/child.js';

const TOKEN = 'config-secret-token';
const dir = mkdtempSync(join(tmpdir(), 'badcfg-'));
writeFileSync(join(dir, 'a-file'), '');
const valid = {
  api: { baseUrl: 'http://127.0.0.1:9', token: TOKEN },
  accounts: ['acme'],
  sink: { type: 'file', path: join(dir, 'out.lp') },
  state: { dir: join(dir, 'state') },
};

/** `run --check` on a config: exit code and what was printed. */
async function check(config: unknown): Promise<{ code: number | null; out: string }> {
  const path = join(dir, `c-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, JSON.stringify(config));
  const { code, stdout, stderr } = await runCli(['run', '--config', path, '--check']).exited;
  return { code, out: stdout + stderr };
}

/** Bad configuration is refused before anything starts: exit 2, the field named, the token never echoed. */
describe('run --check on bad configuration', () => {
  it('accepts the valid base config (exit 0)', async () => {
    expect(await check(valid)).toMatchObject({ code: 0 });
  });

  it.each([
    ['an unknown key', { ...valid, api: { ...valid.api, tokn: 'x' } }, /api.*tokn/],
    ['a bad URL', { ...valid, api: { ...valid.api, baseUrl: 'not a url' } }, /api\.baseUrl/],
    ['a zero quota', { ...valid, quotas: { statistic: { calls: 0, period: '1m' } } }, /quotas\.statistic\.calls/],
    ['a negative quota', { ...valid, quotas: { metrics: { calls: -5, period: '1m' } } }, /quotas\.metrics\.calls/],
    ['a zero quota period', { ...valid, quotas: { dvr: { calls: 5, period: '0s' } } }, /quotas\.dvr\.period/],
    ['a metrics window over 10 minutes', { ...valid, jobs: { metrics: { window: '15m' } } }, /jobs\.metrics\.window/],
    ['a metrics window under 1 minute', { ...valid, jobs: { metrics: { window: '30s' } } }, /jobs\.metrics\.window/],
    ['a quota of 1e20 calls', { ...valid, quotas: { metrics: { calls: 1e20, period: '1m' } } }, /quotas\.metrics\.calls/],
    ['a state.dir that is a file', { ...valid, state: { dir: join(dir, 'a-file') } }, /state\.dir/],
    ['a blank account', { ...valid, accounts: ['  '] }, /accounts\.0/],
  ])('%s exits 2 naming the field', async (_name, config, field) => {
    const { code, out } = await check(config);
    expect(code).toBe(2);
    expect(out).toMatch(field);
    expect(out).not.toContain(TOKEN);
  });
});
