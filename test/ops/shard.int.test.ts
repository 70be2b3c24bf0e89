import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { backfillCommand } from '../../src/cli/backfill/backfill.js';
import { CliError } from '../../src/cli/common/common.js';
import { runCommand } from '../../src/cli/run/run.js';
import { applyShard } from '../../src/cli/common/apply-shard.js';
import { parseShard } from '../../src/cli/common/shard.js';
import { parseConfig } from '../../src/config/loader.js';
import { fnv1a32, shardOf } from '../../src/config/shard.js';
import { ensureBuilt, spawnEntry } from './entry.js';

const ACCOUNTS = ['acme', 'globex', 'initech', 'umbrella', 'hooli'];

function configOf(accounts: string[], streams: Array<{ account: string; stream: string }> = []) {
  return parseConfig(
    {
      api: { baseUrl: 'http://127.0.0.1:9', token: 't' },
      accounts,
      jobs: { dvr: { streams } },
      sink: { type: 'file', path: '-' },
    },
    {},
  );
}

describe('the shard hash', () => {
  it('is 32-bit FNV-1a over UTF-8 (published test vectors), so it never changes with the runtime or version', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
    // Non-ASCII names hash their UTF-8 bytes (C3 A9), not UTF-16 code units.
    expect(fnv1a32('é')).toBe(0x1e9de8c1);
  });

  it('puts the documented example accounts in the same shards on every run', () => {
    expect(ACCOUNTS.map((a) => shardOf(a, 2))).toEqual([1, 0, 1, 1, 0]);
    expect(ACCOUNTS.map((a) => shardOf(a, 3))).toEqual([1, 1, 1, 0, 0]);
  });
});

describe('applyShard', () => {
  // Account names as the config accepts them: not blank, no surrounding spaces.
  const accountName = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() === s);
  const accountLists = fc.uniqueArray(accountName, { minLength: 1, maxLength: 40 });

  it('puts every account in exactly one shard, for any account list and shard count', () => {
    fc.assert(
      fc.property(accountLists, fc.integer({ min: 1, max: 12 }), (accounts, count) => {
        const config = configOf(accounts);
        const seen = new Map<string, number>();
        for (let index = 0; index < count; index++) {
          let mine: string[] = [];
          try {
            mine = applyShard(config, { index, count }).accounts as string[]; // a listed config stays listed
          } catch (err) {
            // Only an empty shard may refuse, and only with a usage error.
            expect(err).toBeInstanceOf(CliError);
            expect(accounts.filter((a) => shardOf(a, count) === index)).toEqual([]);
          }
          for (const a of mine) seen.set(a, (seen.get(a) ?? 0) + 1);
        }
        expect([...seen.keys()].sort()).toEqual([...accounts].sort());
        expect([...seen.values()].every((n) => n === 1)).toBe(true);
      }),
    );
  });

  /** account → the shard that collects it, as the instances would see it (an empty shard collects nothing). */
  function assignment(accounts: string[], count: number): Map<string, number> {
    const owner = new Map<string, number>();
    for (let index = 0; index < count; index++) {
      try {
        for (const a of applyShard(configOf(accounts), { index, count }).accounts) owner.set(a, index);
      } catch {
        // empty shard
      }
    }
    return owner;
  }

  it('never moves an account when others are added or removed (same shard count)', () => {
    fc.assert(
      fc.property(accountLists, accountLists, fc.integer({ min: 2, max: 12 }), (a, b, count) => {
        const before = assignment(a, count);
        const after = assignment([...new Set([...a, ...b])], count);
        for (const account of a) expect(after.get(account)).toBe(before.get(account));
      }),
    );
  });

  it('keeps the DVR streams of its own accounts only', () => {
    const streams = ACCOUNTS.map((account) => ({ account, stream: `live/${account}` }));
    const shard0 = applyShard(configOf(ACCOUNTS, streams), { index: 0, count: 2 });
    expect(shard0.accounts).toEqual(['globex', 'hooli']);
    expect(shard0.jobs.dvr.streams.map((s) => s.account)).toEqual(['globex', 'hooli']);
  });

  it('refuses a shard with no account, naming --shard (exit 2)', () => {
    const err = (() => {
      try {
        applyShard(configOf(['acme']), { index: 0, count: 2 });
      } catch (e) {
        return e as CliError;
      }
    })();
    expect(shardOf('acme', 2)).toBe(1);
    expect(err).toBeInstanceOf(CliError);
    expect(err?.exitCode).toBe(2);
    expect(err?.message).toMatch(/^--shard 0\/2: none of the 1 configured accounts/);
  });
});

describe('parseShard', () => {
  it('reads i/n', () => {
    expect(parseShard('0/1')).toEqual({ index: 0, count: 1 });
    expect(parseShard(' 2 / 3 ')).toEqual({ index: 2, count: 3 });
  });

  it.each(['3/3', '-1/2', '1/0', '0/0', 'a/b', '1', '', '1/2/3', '0.5/2'])(
    'rejects %j with exit 2 naming --shard',
    (text) => {
      expect(() => parseShard(text)).toThrow(CliError);
      try {
        parseShard(text);
      } catch (err) {
        expect((err as CliError).exitCode).toBe(2);
        expect((err as CliError).message).toMatch(/^--shard \(env CDN_SHARD\): /);
      }
    },
  );
});

describe('--shard on run and backfill', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ops-shard-'));
    file = join(dir, 'collector.yaml');
    const yaml = [
      'api: { baseUrl: "http://127.0.0.1:9", token: not-a-real-token }',
      `accounts: [${ACCOUNTS.join(', ')}]`,
      'jobs: { statistic: { enabled: false }, streamstat: { enabled: false }, dvr: { enabled: false } }',
      `sink: { type: file, path: ${join(dir, 'points.lp')} }`,
      `output: { deadLetterPath: ${join(dir, 'dead.jsonl')} }`,
      `state: { dir: ${join(dir, 'state')} }`,
    ].join('\n');
    await writeFile(file, `${yaml}\n`);
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await rm(dir, { recursive: true, force: true });
  });

  async function stdoutOf(run: () => Promise<unknown>): Promise<string> {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await run();
      return out.mock.calls.map((c) => String(c[0])).join('');
    } finally {
      out.mockRestore();
    }
  }

  it('run --check reports the accounts of the shard given by --shard or by CDN_SHARD', async () => {
    const flag = await stdoutOf(() =>
      runCommand().parseAsync(['--config', file, '--check', '--shard', '0/2'], { from: 'user' }),
    );
    expect(flag).toBe(`${file}: valid (shard 0/2: globex, hooli)\n`);
    vi.stubEnv('CDN_SHARD', '1/2');
    const env = await stdoutOf(() => runCommand().parseAsync(['--config', file, '--check'], { from: 'user' }));
    vi.unstubAllEnvs();
    expect(env).toBe(`${file}: valid (shard 1/2: acme, initech, umbrella)\n`);
  });

  it('backfill --dry-run plans the jobs of the shard only', async () => {
    const args = [
      '--config',
      file,
      '--from',
      '2026-01-01T00:00Z',
      '--to',
      '2026-01-01T01:00Z',
      '--dry-run',
      '--json',
      '--shard',
      '1/2',
    ];
    const plan = JSON.parse(await stdoutOf(() => backfillCommand().parseAsync(args, { from: 'user' }))) as {
      jobs: Array<{ key: string }>;
    };
    const accounts = new Set(plan.jobs.map((j) => j.key.split('/')[1]));
    expect([...accounts].sort()).toEqual(['acme', 'initech', 'umbrella']);
  });

  it('the entry command exits 2 naming --shard for an invalid value, from the flag or from CDN_SHARD', async () => {
    ensureBuilt();
    const flag = spawnEntry(['run', '--config', file, '--check', '--shard', '2/2']);
    const env = spawnEntry(['backfill', '--config', file, '--from', '2026-01-01', '--dry-run'], { CDN_SHARD: 'two' });
    expect(await flag.exited).toBe(2);
    expect(flag.output()).toContain('error: --shard (env CDN_SHARD): "2/2" must be i/n');
    expect(await env.exited).toBe(2);
    expect(env.output()).toContain('error: --shard (env CDN_SHARD): "two" must be i/n');
  }, 60_000);
});
