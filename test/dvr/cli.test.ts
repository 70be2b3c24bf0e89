import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../src/cli/common/common.js';
import { dvrCommand } from '../../src/cli/dvr/dvr.js';
import { CollectorError } from '../../src/errors.js';
import { rangesOf, startDvrFixture, T0, type DvrFixture } from './helpers.js';

// acme/live/main: node-01 and node-03 record, node-02 has DVR disabled; deletions fail on node-03.
let f: DvrFixture;
beforeAll(async () => {
  f = await startDvrFixture({ settings: { failingDvrNodes: ['node-03'] } });
});
afterAll(() => f.close());

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `dvr …` in-process, with the exit-code rule of src/cli/main.ts: commander's argument errors → 2 (help → 0),
 * collector errors → exitCodeOf (by their code), each printed as `error: …` on stderr.
 */
async function dvr(args: string[], options: { env?: Record<string, string>; tty?: boolean } = {}): Promise<Run> {
  const run: Run = { code: 0, stdout: '', stderr: '' };
  const env = options.env ?? { CDN_BASE_URL: f.sim.url, CDN_TOKEN: f.sim.token };
  const command = dvrCommand({
    stdout: { write: (s: string) => (run.stdout += s), isTTY: options.tty ?? false },
    env,
    output: { writeOut: (s) => (run.stdout += s), writeErr: (s) => (run.stderr += s) },
  }).exitOverride();
  try {
    await command.parseAsync(args, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) run.code = err.exitCode === 0 ? 0 : 2;
    else if (err instanceof CollectorError) {
      run.code = exitCodeOf(err);
      run.stderr += `error: ${err.message}\n`;
    } else throw err;
  }
  return run;
}

const node = (host: string) => rangesOf(f, 'acme', 'live/main', host);
/** The arguments of `dvr delete` of acme's live/main on `host`, then `rest`. */
const deleteOn = (host: string, ...rest: string[]) => ['delete', 'acme', 'live/main', '--host', host, ...rest];

describe('dvr get', () => {
  it('--json prints the API body', async () => {
    const run = await dvr(['get', 'acme', 'live/main', '--json'], { tty: true });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(await f.dvr.get('acme', 'live/main'));
  });

  it('prints JSON when stdout is not a terminal, and a table on a terminal', async () => {
    expect(JSON.parse((await dvr(['get', 'acme', 'live/main'])).stdout).stream_name).toBe('live/main');
    const table = await dvr(['get', 'acme', 'live/main'], { tty: true });
    expect(table.stdout).toContain('Stream live/main');
    expect(table.stdout).toMatch(/node-02.*no/);
    expect(table.stdout).toContain(new Date((T0 - 10) * 1000).toISOString().slice(0, 13));
  });

  it('--base-url and --token override the environment', async () => {
    const run = await dvr(['get', 'acme', 'live/main', '--json', '--base-url', f.sim.url, '--token', f.sim.token], {
      env: {},
    });
    expect(run.code).toBe(0);
  });
});

describe('dvr delete', () => {
  it('without --yes only shows, per node, the parts it would remove, and changes nothing', async () => {
    const before = { n1: await node('node-01'), n3: await node('node-03') };
    const last = before.n1.at(-1)!;
    const run = await dvr(deleteOn('*', '--from', String(T0 - 100), '--to', String(T0 + 100)));
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({
      dry_run: true,
      deleted: false,
      host: '*',
      deletes: { from_ts: T0 - 100, to_ts: T0 + 100 },
    });
    expect(report.nodes).toEqual([
      { host: 'node-01', parts: [{ from: T0 - 100, duration: 100 }], seconds: 100 },
      { host: 'node-02', parts: [], seconds: 0 },
      { host: 'node-03', parts: [{ from: T0 - 100, duration: 100 }], seconds: 100 },
    ]);
    expect(last.from + last.duration).toBe(T0);
    expect({ n1: await node('node-01'), n3: await node('node-03') }).toEqual(before);
  });

  it('--dry-run wins over --yes; the table says nothing was deleted', async () => {
    const before = await node('node-01');
    const run = await dvr(['delete-all', 'acme', 'live/main', '--host', 'node-01', '--yes', '--dry-run'], {
      tty: true,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Nothing was deleted. Add --yes to delete.');
    expect(await node('node-01')).toEqual(before);
  });

  it('with --yes deletes exactly [--from, --from + --duration), ISO 8601 accepted', async () => {
    const before = await node('node-01');
    const r = before[0]!;
    const from = new Date((r.from + 10) * 1000).toISOString();
    const run = await dvr(deleteOn('node-01', '--from', from, '--duration', '20', '--yes'));
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      status: 'Completed',
      stream_name: 'live/main',
      host: 'node-01',
      from_ts: r.from + 10,
      duration_sec: 20,
    });
    expect((await node('node-01')).slice(0, 2)).toEqual([
      { from: r.from, duration: 10 },
      { from: r.from + 30, duration: r.duration - 30 },
    ]);
  });

  it('a failure on some host prints failed_hosts and exits 1; the other nodes are changed', async () => {
    const n3 = await node('node-03');
    const run = await dvr(['delete-all', 'globex', 'live/main', '--host', '*', '--yes', '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'Internal Server Error', failed_hosts: ['node-03'] });
    expect(run.stderr).toContain('node-03');
    expect(await rangesOf(f, 'globex', 'live/main', 'node-01')).toEqual([]);
    expect(await node('node-03')).toEqual(n3);
    const table = await dvr(['delete-all', 'globex', 'live/main', '--host', 'node-03', '--yes'], { tty: true });
    expect([table.code, table.stdout]).toEqual([1, expect.stringContaining('Deletion failed on: node-03')]);
  });
});

describe('times are ISO 8601 or unix seconds, never guessed', () => {
  it('--from "yesterday 5" with --yes exits 2 naming --from, and deletes nothing', async () => {
    const before = await node('node-01');
    const now = String(Math.floor(f.clock.now() / 1000));
    const run = await dvr(deleteOn('node-01', '--from', 'yesterday 5', '--to', now, '--yes'));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--from/);
    expect(await node('node-01')).toEqual(before);
  });

  it.each(['-5', '1.5', 'Nov 23', '01/11/2026', 'yesterday 5', '2026-02-30T00:00:00Z'])(
    '--from %j exits 2',
    async (from) => {
      const requests = f.sim.stats.apis.dvr.requests;
      const run = await dvr(deleteOn('node-01', '--from', from, '--duration', '60', '--yes'));
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--from/);
      expect(f.sim.stats.apis.dvr.requests).toBe(requests);
    },
  );

  it('relative times read as every time option reads them: yesterday is 00:00 UTC, plus 10m', async () => {
    const args = deleteOn('*', '--from', 'yesterday', '--to', 'yesterday+10m');
    const report = JSON.parse((await dvr(args)).stdout);
    expect(report.deletes.from).toMatch(/T00:00:00Z$/);
    expect(report.deletes.to_ts - report.deletes.from_ts).toBe(600);
  });

  it('the preview gives the cut as absolute times and the recorded seconds it removes', async () => {
    const args = deleteOn('*', '--from', String(T0 - 100), '--to', String(T0 + 100));
    const report = JSON.parse((await dvr(args)).stdout);
    expect(report.deletes).toEqual({
      from_ts: T0 - 100,
      to_ts: T0 + 100,
      from: new Date((T0 - 100) * 1000).toISOString().replace('.000', ''),
      to: new Date((T0 + 100) * 1000).toISOString().replace('.000', ''),
    });
    expect(report.seconds).toBe(200);
    const table = await dvr(args, { tty: true });
    expect(table.stdout).toContain(`[${report.deletes.from}, ${report.deletes.to}) (200 recorded seconds)`);
  });
});

describe('bad arguments exit 2, before any request', () => {
  it.each([
    ['missing token', ['get', 'acme', 'live/main'], { CDN_BASE_URL: 'http://127.0.0.1:9' }, /CDN_TOKEN/],
    ['missing base URL', ['get', 'acme', 'live/main'], { CDN_TOKEN: 'x' }, /CDN_BASE_URL/],
    [
      'no --to nor --duration',
      ['delete', 'a', 's', '--host', '*', '--from', '1767225610'],
      undefined,
      /--to or --duration/,
    ],
    [
      'both --to and --duration',
      ['delete', 'a', 's', '--host', '*', '--from', '1767225610', '--to', '1767225620', '--duration', '5'],
      undefined,
      /cannot be used with/,
    ],
    [
      '--from a year typed as seconds',
      ['delete', 'a', 's', '--host', '*', '--from', '2026', '--to', '1767225620'],
      undefined,
      /--from is a number but not unix seconds/,
    ],
    [
      '--from before 2000',
      ['delete', 'a', 's', '--host', '*', '--from', '1999-12-31', '--to', '1767225620'],
      undefined,
      /--from is before 2000-01-01/,
    ],
    [
      '--from in milliseconds',
      ['delete', 'a', 's', '--host', '*', '--from', '1767225600000', '--to', '1767225620'],
      undefined,
      /--from looks like milliseconds: unix seconds have 10 digits \(1767225600 is 2026-01-01T00:00:00Z\)/,
    ],
    [
      '--from not a time',
      ['delete', 'a', 's', '--host', '*', '--from', 'Nov 23', '--to', '1767225620'],
      undefined,
      /--from must be a time/,
    ],
    [
      '--from with milliseconds',
      ['delete', 'a', 's', '--host', '*', '--from', '2026-01-01T00:00:00.5Z', '--to', '2000000000'],
      undefined,
      /whole second/,
    ],
    [
      '--duration 0',
      ['delete', 'a', 's', '--host', '*', '--from', '1767225610', '--duration', '0'],
      undefined,
      /--duration must be/,
    ],
    [
      '--to before --from',
      ['delete', 'a', 's', '--host', '*', '--from', '1767225610', '--to', '1767225605'],
      undefined,
      /to_ts: must be greater than from_ts/,
    ],
    ['missing --host', ['delete-all', 'a', 's', '--yes'], undefined, /--host/],
    ['empty --host', ['delete-all', 'a', 's', '--host', '', '--yes'], undefined, /host/],
    ['missing stream', ['get', 'acme'], undefined, /stream/],
    ['stream with ..', ['get', 'acme', 'live/..'], undefined, /stream/],
    ['account ..', ['get', '..', 'live/main'], undefined, /account/],
    ['account .', ['delete-all', '.', 'live/main', '--host', '*', '--yes'], undefined, /account/],
    ['stream with an empty segment', ['get', 'acme', 'live//main'], undefined, /stream/],
    ['stream with a leading /', ['get', 'acme', '/live/main'], undefined, /stream/],
    ['stream with a trailing /', ['get', 'acme', 'live/'], undefined, /stream/],
    [
      '--token and --token-file',
      ['get', 'acme', 'live/main', '--token', 't', '--token-file', '/x'],
      undefined,
      /--token-file/,
    ],
    [
      'an unreadable --token-file',
      ['get', 'acme', 'live/main', '--token-file', '/nonexistent/token'],
      undefined,
      /--token-file/,
    ],
  ])('%s', async (_label, args, env, message) => {
    const requests = f.sim.stats.apis.dvr.requests;
    const run = await dvr(args, env ? { env } : {});
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(f.sim.stats.apis.dvr.requests).toBe(requests);
  });

  it('an unknown --host in a dry run exits 2 and lists the hosts', async () => {
    const run = await dvr(['delete-all', 'acme', 'live/main', '--host', 'node-99']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('node-01, node-02, node-03');
  });

  it.each([
    ['delete-all', ['delete-all', 'acme', 'live/main', '--host', 'node-99']],
    ['delete', ['delete', 'acme', 'live/main', '--host', 'node-99', '--from', String(T0 - 100), '--to', String(T0)]],
  ])('%s of an unknown --host with --yes is refused as in the dry run; no DELETE is sent', async (_label, args) => {
    const before = { n1: await node('node-01'), n3: await node('node-03') };
    const refused = f.sim.stats.apis.dvr.byStatus['400'] ?? 0;
    const run = await dvr([...args, '--yes']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--host node-99: the stream has no record on that host');
    expect(run.stderr).toContain('(hosts: node-01, node-02, node-03, or *)');
    expect(f.sim.stats.apis.dvr.byStatus['400'] ?? 0).toBe(refused);
    expect({ n1: await node('node-01'), n3: await node('node-03') }).toEqual(before);
  });
});

describe('help and secrets', () => {
  it.each([['get'], ['delete'], ['delete-all']])('%s --help explains the output modes and exits 0', async (name) => {
    const run = await dvr([name, '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Usage: dvr ${name}`);
    expect(run.stdout).toContain('not a terminal');
    if (name !== 'get') expect(run.stdout).toContain('--yes');
  });

  it('--token still works but warns that ps shows it; --token-file and CDN_TOKEN do not warn', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dvr-token-'));
    const file = join(dir, 'token');
    writeFileSync(file, `${f.sim.token}\n`);
    const viaArg = await dvr(['get', 'acme', 'live/main', '--token', f.sim.token, '--base-url', f.sim.url], {
      env: {},
    });
    const viaFile = await dvr(['get', 'acme', 'live/main', '--token-file', file, '--base-url', f.sim.url], { env: {} });
    const viaEnv = await dvr(['get', 'acme', 'live/main']);
    expect([viaArg.code, viaFile.code, viaEnv.code]).toEqual([0, 0, 0]);
    expect(viaArg.stderr).toMatch(/warning: --token is visible .*CDN_TOKEN or --token-file/);
    expect(viaFile.stderr + viaEnv.stderr).toBe('');
    expect(viaArg.stderr).not.toContain(f.sim.token);
  });

  it('never prints the token, neither on success nor on a rejected token', async () => {
    const token = f.sim.token;
    const ok = await dvr(['get', 'acme', 'live/main', '--token', token, '--base-url', f.sim.url], { env: {} });
    const rejected = await dvr(['get', 'acme', 'live/main'], {
      env: { CDN_BASE_URL: f.sim.url, CDN_TOKEN: 'wrong-secret-token' },
    });
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain('403');
    expect(`${ok.stdout}${ok.stderr}`).not.toContain(token);
    expect(`${rejected.stdout}${rejected.stderr}`).not.toContain('wrong-secret-token');
  });
});

describe('the DVR client refuses paths that escape the stream', () => {
  it.each([
    ['..', 'live/main', 'account'],
    ['.', 'live/main', 'account'],
    ['', 'live/main', 'account'],
    ['acme', '../../metrics', 'stream'],
    ['acme', 'live//main', 'stream'],
  ])('%j / %j names the %s', async (account, stream, parameter) => {
    const requests = f.sim.stats.apis.dvr.requests;
    await expect(f.dvr.get(account, stream)).rejects.toMatchObject({ name: 'ParameterError', parameter });
    await expect(f.dvr.deleteAll(account, stream, { host: '*' })).rejects.toMatchObject({ parameter });
    expect(f.sim.stats.apis.dvr.requests).toBe(requests);
  });
});
