import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useTakenPort } from '../helpers/loopback.js';

/** A stack trace line: what a user must never see for a bad argument or a busy port. */
const STACK = /^\s+at .+\(.+:\d+:\d+\)$/m;
const dir = mkdtempSync(join(tmpdir(), 'badargs-'));

describe('every bad argument exits 2 with a message (a real process)', () => {
  it.each([
    [['api', 'foo', '/'], /argument 'api'.*metrics, statistic, streamstat, dvr/],
    [['sim', '--clock-speed', '0'], /--clock-speed.*positive/],
    [['sim', '--clock-speed', 'fast'], /--clock-speed.*positive/],
    [['sim', '--fault', 'bogus'], /--fault.*expected api=kind/],
    [['sim', '--fault', 'statistic=500:2'], /--fault.*rate must be between 0 and 1/],
    [['sim', '--fault', 'statistic=teapot'], /--fault.*unknown fault kind "teapot"/],
    [['sim', '--port', '70000'], /--port.*from 0 to 65535/],
    [['sim', '--port', '-1'], /--port.*from 0 to 65535/],
    [['sim', '--username', 'ops'], /--username and --password go together/],
    [['run', '--log-level', 'loud'], /--log-level.*Allowed choices/],
    [['run', '--log-format', 'xml'], /--log-format.*Allowed choices/],
    [['run', '--listen', 'nowhere'], /--listen.*host:port/],
  ])('%j', async (args, message) => {
    const r = await runCli(args, {}, { killAfterMs: 20_000 }).exited;
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(STACK);
  });

  it('schema --write into a missing folder: exit 2 naming the option, no stack, nothing written', async () => {
    const target = join(dir, 'missing', 'schema.md');
    const r = await runCli(['schema', '--write', target]).exited;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--write .*missing.*its folder does not exist/);
    expect(r.stderr).not.toMatch(STACK);
    expect(existsSync(target)).toBe(false);
  });

  it('config --reference --write to a directory: exit 2, no stack', async () => {
    const r = await runCli(['config', '--reference', '--write', dir]).exited;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/it is a directory/);
    expect(r.stderr).not.toMatch(STACK);
  });
});

describe('sim --port already in use', () => {
  const taken = useTakenPort();

  it('says so in one line and exits 1 (the argument is valid; the machine is busy), no stack', async () => {
    const { port } = taken;
    const r = await runCli(['sim', '--port', String(port)], {}, { killAfterMs: 20_000 }).exited;
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: --port ${port}: address 127.0.0.1:${port} is already in use\n`);
  });
});
