import { mkdtempSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, waitForOutput, type ChildRun } from '../helpers/cli.js';
import { writeSimConfig } from '../helpers/collector.js';
import { useSimulator } from '../helpers/sim.js';

/**
 * Ctrl-C through npm/npx: the terminal signals the whole process group and npm forwards the signal to its child, so
 * the child gets SIGINT twice (npm's @npmcli/run-script signal-manager). The copy is sent once the command has
 * handled the first (`handled` on stderr): two signals sent at once may merge into one delivery.
 */
async function ctrlCThroughNpm(run: ChildRun, handled: RegExp): Promise<void> {
  const acknowledged = waitForOutput(run, 'stderr', handled);
  run.child.kill('SIGINT');
  await acknowledged;
  run.child.kill('SIGINT');
}

describe('Ctrl-C and SIGTERM end a command cleanly, however the process is started', () => {
  const s = useSimulator();

  it('sim: Ctrl-C exits 0', async () => {
    const run = runCli(['sim'], {}, { killAfterMs: 30_000 });
    await waitForOutput(run, 'stdout', /"url"/);
    run.child.kill('SIGINT');
    const r = await run.exited;
    expect(r.signal).toBeNull();
    expect(r.code).toBe(0);
  });

  it('sim: one SIGTERM exits 0', async () => {
    const run = runCli(['sim'], {}, { killAfterMs: 30_000 });
    await waitForOutput(run, 'stdout', /"url"/);
    run.child.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
  });

  it('run: the daemon stops gracefully on Ctrl-C as npx delivers it, exit 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sigrun-'));
    const config = writeSimConfig(dir, s.sim, {
      jobs: { dvr: { enabled: false }, statistic: { enabled: false }, streamstat: { enabled: false } },
    });
    const run = runCli(['run', '--config', config, '--log-format', 'json'], {}, { killAfterMs: 60_000 });
    await waitForOutput(run, 'stderr', /"event":"collector_started"/);
    await ctrlCThroughNpm(run, /"event":"stopping"/);
    const r = await run.exited;
    expect(r.signal).toBeNull();
    expect(r.code, r.stderr).toBe(0);
    // The graceful stop ran to its end: the copy of the signal did not cut it short.
    expect(r.stderr).toMatch(/"event":"stopped"/);
  });

  describe('a command with no stop of its own (api, waiting on a server that never answers)', () => {
    let silent: Server;
    let url: string;
    let connected: Promise<void>;
    const sockets: Socket[] = [];
    beforeAll(async () => {
      let onConnect!: () => void;
      connected = new Promise((res) => (onConnect = res));
      silent = createServer((socket) => {
        onConnect();
        sockets.push(socket.on('error', () => undefined));
      });
      await new Promise<void>((res) => silent.listen(0, '127.0.0.1', res));
      url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((res) => silent.close(() => res()));
    });

    it('exits at once on Ctrl-C, 130: its work was not done', async () => {
      const run = runCli(
        ['api', 'metrics', '/'],
        { CDN_BASE_URL: url, CDN_TOKEN: 'signal-test-token' },
        { killAfterMs: 30_000 },
      );
      await connected;
      run.child.kill('SIGINT');
      const r = await run.exited;
      expect(r.signal).toBeNull();
      expect(r.code).toBe(130);
    });
  });
});
