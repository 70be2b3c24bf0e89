/**
 * A cancelled backfill stays cancelled: its range belongs to the command that asked for it, not to the daemon. The
 * daemon runs a handed-over backfill, Ctrl-C cancels it, and the daemon's next passes make no call inside the
 * cancelled range (they used to take the whole rest of it as gaps). `status` lists the unfinished range with its
 * resume command; running that command completes the range exactly: every window read once, none missing.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { backfillArgs } from '../helpers/cli.js';
import { onlyJobs, writeSimConfig } from '../helpers/collector.js';
import { loopbackServer, type LoopbackServer } from '../helpers/loopback.js';
import { ensureBuilt, spawnEntry, waitFor, type Entry } from '../ops/entry.js';

const MINUTE = 60_000;

async function cli(args: string[]): Promise<{ code: number | string; stdout: string; output: string }> {
  const run = spawnEntry(args);
  let stdout = '';
  run.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await run.exited;
  return { code, stdout, output: run.output() };
}

interface Unfinished {
  from: string;
  to: string;
  jobs: string[];
  spansDone: number;
  spans: number;
  state: string;
  resume: string;
}

describe('a cancelled backfill beside the daemon', () => {
  let sim: Simulator;
  let proxy: LoopbackServer;
  let daemon: Entry;
  let configFile: string;
  const dir = mkdtempSync(join(tmpdir(), 'cancel-owned-'));
  /** Metrics calls seen, by `account start end`. */
  const reads = new Map<string, number>();

  beforeAll(async () => {
    ensureBuilt();
    sim = await startSimulator({ quotas: { metrics: { calls: 5, periodMs: 2_000 } } });
    proxy = await loopbackServer(async (req, res) => {
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
    configFile = writeSimConfig(dir, sim, {
      api: { baseUrl: proxy.url, token: sim.token, timeout: '5s' },
      accounts: sim.accounts.slice(0, 2),
      quotas: { metrics: { calls: 5, period: '2s' } },
      jobs: onlyJobs({ metrics: { window: '1m', delay: '1s', byResource: false, schedule: '*/2 * * * * *' } }),
      output: { deadLetterPath: join(dir, 'dead-letters.jsonl') },
      state: { dir: join(dir, 'state'), initialLookback: '5m' },
      log: { level: 'debug' },
    });
    daemon = spawnEntry(['run', '--config', configFile]);
    await waitFor(
      'the daemon status file',
      async () => (readdirSync(join(dir, 'state')).includes('daemon-status.json') ? true : undefined),
      30_000,
      daemon.output,
    );
  }, 120_000);

  afterAll(async () => {
    if (daemon && daemon.child.exitCode === null) {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
    await proxy?.close();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the daemon makes no call for the cancelled range; `backfill` again completes it exactly', async () => {
    const to = Math.floor(Date.now() / MINUTE) * MINUTE - 60 * MINUTE;
    const from = to - 30 * MINUTE;
    const inRange = () =>
      [...reads.keys()].filter((k) => {
        const start = Date.parse(`${k.split(' ')[1]}Z`.replace(/ZZ$/, 'Z'));
        return start >= from && start < to;
      });
    const requests = join(dir, 'state', 'backfill');
    const run = spawnEntry(backfillArgs(configFile, from, to));
    const spansDone = async () => {
      const file = readdirSync(requests).find((n) => n.endsWith('.status.json'));
      const status = file && (JSON.parse(readFileSync(join(requests, file), 'utf8')) as { spansDone: number });
      return status && status.spansDone >= 4 ? true : undefined;
    };
    await waitFor('the daemon running the backfill', spansDone, 60_000, run.output);
    run.child.kill('SIGINT');
    expect(await run.exited, run.output()).toBe(130);
    expect(run.output()).toMatch(/backfill cancelled: \d+\/60 spans/);
    // Notes come before the summary: the cancel's last lines are the summary and how to resume.
    const tail = run.output().slice(run.output().indexOf('backfill cancelled'));
    expect(tail).not.toMatch(/note: /);

    const done = inRange().length;
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(60);
    // Two passes of each job of the daemon after the cancel.
    const passes = () => daemon.output().split('"msg":"job pass"').length - 1;
    const seen = passes();
    await waitFor('two daemon passes', async () => (passes() >= seen + 4 ? true : undefined), 60_000, daemon.output);
    expect(inRange().length).toBe(done);

    const status = await cli(['status', '--config', configFile, '--json']);
    const unfinished = (JSON.parse(status.stdout) as { unfinishedBackfills: Unfinished[] }).unfinishedBackfills;
    expect(unfinished).toHaveLength(1);
    expect(unfinished[0]).toMatchObject({
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      jobs: [],
      spans: 60,
      state: 'cancelled',
    });
    expect(unfinished[0]!.spansDone).toBeGreaterThan(0);
    expect(unfinished[0]!.spansDone).toBeLessThan(60);
    const text = await cli(['status', '--config', configFile]);
    expect(text.stdout).toContain(unfinished[0]!.resume);

    // The resume command, as status gives it.
    const resume = unfinished[0]!.resume.split(' ').slice(1);
    const again = await cli([...resume, '--json']);
    expect(again.code, `${again.output}\n${daemon.output()}`).toBe(0);
    const result = JSON.parse(again.stdout) as { state: string; spans: number };
    expect(result.state).toBe('done');
    expect(result.spans).toBe(60 - done);
    expect(inRange().length).toBe(60);
    expect([...reads].filter(([, n]) => n > 1)).toEqual([]);
    const after = await cli(['status', '--config', configFile, '--json']);
    expect((JSON.parse(after.stdout) as { unfinishedBackfills: Unfinished[] }).unfinishedBackfills).toEqual([]);
  }, 240_000);
});
