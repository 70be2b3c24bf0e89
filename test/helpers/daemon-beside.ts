/**
 * A daemon as a process on a state directory, against the simulator behind a proxy that counts the metrics calls per
 * account and window: what the backfill and verify commands run beside (test/backfill/beside-daemon.test.ts,
 * cancelled-stays-cancelled.test.ts).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { ensureBuilt, spawnEntry, waitFor, type Entry } from '../ops/entry.js';
import { onlyJobs, writeSimConfig } from './collector.js';
import { loopbackServer, type LoopbackServer } from './loopback.js';

/** The metrics quota of the simulator and the daemon. */
export const BESIDE_QUOTA = { calls: 5, periodMs: 2_000 };

export interface DaemonBeside {
  sim: Simulator;
  proxy: LoopbackServer;
  daemon: Entry;
  configFile: string;
  dir: string;
  /** Metrics calls seen, by `account start end`. */
  reads: Map<string, number>;
  close(): Promise<void>;
}

/** Starts the simulator, the counting proxy and the daemon (metrics only, 1-minute windows), up once it reports. */
export async function startDaemonBeside(prefix: string, config: Record<string, unknown> = {}): Promise<DaemonBeside> {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const reads = new Map<string, number>();
  const sim = await startSimulator({ quotas: { metrics: BESIDE_QUOTA } });
  const proxy = await loopbackServer(async (req, res) => {
    const url = new URL(req.url ?? '/', sim.url);
    if (url.pathname.includes('metrics')) {
      const key = ['account', 'start', 'end'].map((k) => url.searchParams.get(k)).join(' ');
      reads.set(key, (reads.get(key) ?? 0) + 1);
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(
        ([k, v]) => typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k),
      ),
    ) as Record<string, string>;
    const answer = await fetch(url, { method: req.method, headers });
    const body = Buffer.from(await answer.arrayBuffer());
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    res.end(body);
  });
  const configFile = writeSimConfig(dir, sim, {
    api: { baseUrl: proxy.url, token: sim.token, timeout: '5s' },
    accounts: sim.accounts.slice(0, 2),
    quotas: { metrics: { calls: BESIDE_QUOTA.calls, period: `${BESIDE_QUOTA.periodMs / 1000}s` } },
    jobs: onlyJobs({ metrics: { window: '1m', delay: '1s', byResource: false, schedule: '*/2 * * * * *' } }),
    output: { deadLetterPath: join(dir, 'dead-letters.jsonl') },
    state: { dir: join(dir, 'state'), initialLookback: '5m' },
    ...config,
  });
  const daemon = spawnEntry(['run', '--config', configFile]);
  // The daemon is up once it reports its status for `status` and backfills.
  await waitFor(
    'the daemon status file',
    async () => (readdirSync(join(dir, 'state')).includes('daemon-status.json') ? true : undefined),
    30_000,
    daemon.output,
  );
  return {
    sim,
    proxy,
    daemon,
    configFile,
    dir,
    reads,
    close: async () => {
      if (daemon.child.exitCode === null) {
        daemon.child.kill('SIGTERM');
        await daemon.exited;
      }
      await proxy.close();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs the CLI to its end; stdout apart from the log lines on stderr. */
export async function runEntry(args: string[]): Promise<{ code: number | string; stdout: string; output: string }> {
  const run = spawnEntry(args);
  let stdout = '';
  run.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await run.exited;
  return { code, stdout, output: run.output() };
}
