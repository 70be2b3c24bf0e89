import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useColour } from '../../src/colour.js';
import { runCli } from '../helpers/cli.js';
import { useSimulator } from '../helpers/sim.js';

const ANSI = /\x1b\[/;
const BIN = resolve(import.meta.dirname, '../../bin/cdn-collector.js');
/** util-linux `script` gives the command a pseudo-terminal: the real TTY case, without an npm package. */
const SCRIPT = ['/usr/bin/script', '/bin/script'].find((path) => existsSync(path));

describe('the colour decision', () => {
  it('colours only a terminal, never with NO_COLOR, always with FORCE_COLOR (not 0)', () => {
    expect(useColour({ isTTY: true }, {})).toBe(true);
    expect(useColour({ isTTY: false }, {})).toBe(false);
    expect(useColour({}, {})).toBe(false);
    expect(useColour({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(useColour({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(useColour({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(useColour({ isTTY: true }, { FORCE_COLOR: '0' })).toBe(true);
    expect(useColour({ isTTY: true }, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(false);
  });
});

describe('dvr get --table (a real process)', () => {
  const s = useSimulator();
  const args = () => ['dvr', 'get', s.sim.streams[0]!.account, s.sim.streams[0]!.stream, '--table'];
  const env = () => ({ CDN_BASE_URL: s.sim.url, CDN_TOKEN: s.sim.token });

  it('into a pipe: a table without ANSI codes', async () => {
    const r = await runCli(args(), env()).exited;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('host');
    expect(r.stdout).not.toMatch(ANSI);
  });

  it.skipIf(!SCRIPT)('on a terminal (script -qec): coloured, and plain with NO_COLOR', async () => {
    const onTerminal = (extraEnv: Record<string, string>) => {
      const command = [process.execPath, BIN, ...args()].map((a) => `'${a}'`).join(' ');
      const base = Object.fromEntries(
        Object.entries(process.env).filter(([k]) => !/^(CDN_|INFLUX_|NO_COLOR|FORCE_COLOR)/.test(k)),
      );
      // Asynchronously: the simulator answering the command runs in this process.
      return new Promise<string>((res, rej) => {
        execFile(SCRIPT!, ['-qec', command, '/dev/null'], { env: { ...base, ...env(), ...extraEnv } }, (err, stdout) =>
          err ? rej(err) : res(stdout),
        );
      });
    };
    const coloured = await onTerminal({});
    expect(coloured).toContain('host');
    expect(coloured).toMatch(ANSI);
    const plain = await onTerminal({ NO_COLOR: '1' });
    expect(plain).toContain('host');
    expect(plain).not.toMatch(ANSI);
  });
});
