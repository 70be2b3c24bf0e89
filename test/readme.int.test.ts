import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { APIS } from '../src/spec/apis.js';
import { useSimulator } from './helpers/sim.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'bin/cdn-collector.js');

/** The `sh` code blocks of the README, one command per line (continuations joined). */
function readmeCommands(): string[] {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((m) => m[1]!.replace(/\\\n\s*/g, ' ').split('\n'))
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** Splits a shell line into words, honouring single and double quotes (enough for the README's examples). */
function words(line: string, vars: Record<string, string>): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) {
    const word = m[1] ?? (m[2] ?? m[3]!).replace(/\$(\w+)/g, (_, name: string) => vars[name] ?? '');
    out.push(word);
  }
  return out;
}

/**
 * Every simulator, API and DVR example of the README runs as written against a simulator (curl and the CLI);
 * the daemon, backfill and demo commands are covered by test/collector and test/ops.
 */
describe('README examples', () => {
  const s = useSimulator();
  const commands = readmeCommands();

  it('has curl examples for every API and CLI examples for each', () => {
    for (const { prefix } of Object.values(APIS)) {
      expect(
        commands.some((c) => c.startsWith('curl') && c.includes(`${prefix}/`)),
        prefix,
      ).toBe(true);
    }
    for (const cli of ['api metrics', 'api statistic', 'api streamstat', 'dvr get']) {
      expect(commands.some((c) => c.startsWith(`npx cdn-collector ${cli}`))).toBe(true);
    }
  });

  it('every curl example answers 2xx', async () => {
    const vars = { T: s.sim.token, U: s.sim.url };
    for (const line of commands.filter((c) => c.startsWith('curl'))) {
      const args = words(line, vars).slice(1);
      const { stdout } = await run('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', ...args]);
      expect(stdout, line).toMatch(/^2\d\d$/);
    }
  });

  it('every api and dvr get example exits 0 and prints JSON', async () => {
    const env = { ...process.env, CDN_BASE_URL: s.sim.url, CDN_TOKEN: s.sim.token };
    const lines = commands.filter((c) => /^npx cdn-collector (api|dvr get) /.test(c));
    for (const line of lines) {
      const args = words(line, {}).slice(2);
      const { stdout } = await run(process.execPath, [CLI, ...args, ...(args[0] === 'dvr' ? ['--json'] : [])], { env });
      expect(() => JSON.parse(stdout), line).not.toThrow();
    }
  });

  it('the simulator options of the README start a simulator that prints its JSON line', async () => {
    const line = commands.find((c) => c.startsWith('npx cdn-collector sim --quota'))!;
    const args = words(line, {}).slice(2);
    const child = (await import('node:child_process')).spawn(process.execPath, [CLI, ...args, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const first = await new Promise<string>((resolve) =>
      child.stdout.once('data', (d: Buffer) => resolve(d.toString())),
    );
    child.kill('SIGTERM');
    expect(JSON.parse(first.split('\n')[0]!)).toMatchObject({ accounts: ['acme', 'globex'] });
  });
});
