import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asStateIoError } from '../../src/state/errors.js';
import { runCli } from '../helpers/cli.js';

/** `backfill --dry-run` with `stateDir`: it opens the state dir (lock, checkpoints, quota journal) before planning. */
async function backfillWithState(dir: string, stateDir: string) {
  const config = join(dir, 'collector.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      api: { baseUrl: 'http://127.0.0.1:9', token: 'startup-secret-token' },
      accounts: ['acme'],
      sink: { type: 'file', path: join(dir, 'out.lp') },
      state: { dir: stateDir },
    }),
  );
  return runCli(['backfill', '--config', config, '--from', '2024-01-01', '--to', '2024-01-02', '--dry-run']).exited;
}

/** One line, `error: …`, no stack trace. */
function expectOneLineError(stderr: string, ...parts: string[]): void {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: state directory: cannot use /);
  for (const part of parts) expect(lines[0]).toContain(part);
}

describe('an unusable state directory at start-up', () => {
  it(
    'a state dir under a regular file (ENOTDIR, as unwritable as read-only for root) ' +
      'is refused by the config check: one line naming state.dir, exit 2',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'state-startup-'));
      writeFileSync(join(dir, 'plain-file'), '');
      const { code, stderr } = await backfillWithState(dir, join(dir, 'plain-file', 'state'));
      expect(code).toBe(2);
      const lines = stderr.trim().split('\n');
      expect(lines, stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^error: config state\.dir: /);
    },
  );

  it('a quota journal that cannot be read (a directory in its place) is a one-line error naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'state-startup-'));
    mkdirSync(join(dir, 'state', 'quota-calls.json'), { recursive: true });
    const { code, stderr } = await backfillWithState(dir, join(dir, 'state'));
    expect(code).toBe(1);
    expectOneLineError(stderr, join(dir, 'state', 'quota-calls.json'), 'EISDIR');
  });

  it.each([
    ['ENOSPC', 'no space left on device'],
    ['EROFS', 'read-only file system'],
    ['EACCES', 'permission denied'],
  ])('%s (full disk, read-only mount, permissions) becomes a StateIoError naming the path', (code, text) => {
    const err = Object.assign(new Error(`${code}: open '/var/lib/x/state.lock.1.new'`), {
      code,
      path: '/var/lib/x/state.lock.1.new',
    });
    expect(asStateIoError(err, '/var/lib/x')?.message).toBe(
      `state directory: cannot use /var/lib/x/state.lock.1.new: ${text} (${code})`,
    );
  });
});
