/** The config tool prints what a shard collects without secrets, and `--print` shows the shard's own configuration. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { shardOf } from '../../src/config/shard.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'config-shards-'));

/** The collector.yaml of deploy/k8s/configmap.yaml, as a file (what the pods mount). */
function k8sConfig(): string {
  const docs = parseAllDocuments(readFileSync('deploy/k8s/configmap.yaml', 'utf8')).map((d) => d.toJS());
  const configMap = docs.find((d) => d?.kind === 'ConfigMap') as { data: Record<string, string> };
  const path = join(dir, 'collector.yaml');
  writeFileSync(path, configMap.data['collector.yaml']!);
  return path;
}

describe('config --shards and --print with a shard', () => {
  it("--shards 2 of the k8s ConfigMap's file with no secret set: the split, exit 0", async () => {
    const path = k8sConfig();
    const { accounts } = parse(readFileSync(path, 'utf8')) as { accounts: string[] };
    const out = await runCli(['config', '--shards', '2', '--config', path]).exited;
    expect(out.code, out.stderr).toBe(0);
    const none = '(none: this shard would refuse to start)';
    const line = (i: number) => `${i}/2: ${accounts.filter((a) => shardOf(a, 2) === i).join(', ') || none}\n`;
    expect(out.stdout).toBe(line(0) + line(1));
  });

  it('--shards still refuses accounts it cannot split, naming the field', async () => {
    const path = join(dir, 'no-accounts.yaml');
    writeFileSync(path, 'api: { baseUrl: http://127.0.0.1:1 }\n');
    const out = await runCli(['config', '--shards', '2', '--config', path]).exited;
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/accounts: required/);
  });

  it('--print with CDN_SHARD prints the accounts of that shard only', async () => {
    const accounts = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'stark'];
    const env = {
      CDN_BASE_URL: 'http://127.0.0.1:1',
      CDN_TOKEN: 'config-shards-token',
      CDN_ACCOUNTS: accounts.join(','),
      INFLUX_URL: 'http://127.0.0.1:8086',
      INFLUX_TOKEN: 'config-shards-influx',
      INFLUX_ORG: 'ops',
      INFLUX_BUCKET: 'cdn',
      CDN_SHARD: '1/2',
    };
    const out = await runCli(['config', '--print'], env).exited;
    expect(out.code, out.stderr).toBe(0);
    const mine = accounts.filter((a) => shardOf(a, 2) === 1);
    expect(mine.length).toBeLessThan(accounts.length);
    expect((parse(out.stdout) as { accounts: string[] }).accounts).toEqual(mine);
  });
});
