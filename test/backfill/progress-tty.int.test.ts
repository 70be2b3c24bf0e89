/**
 * The standalone backfill's terminal output: the bar on a pty (util-linux `script`), its ETA from the plan and the
 * quota from the first frame on (not "ETA 0s" while waiting), the summary line, and Ctrl-C saying how to resume.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { ensureBuilt, ROOT, spawnEntry, waitFor } from '../ops/entry.js';

const MINUTE = 60_000;

function inPty(command: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      'script',
      ['-qec', command, '/dev/null'],
      { cwd: ROOT, env: { ...process.env, COLUMNS: '160' } },
      (err, stdout) =>
        resolve({
          code: typeof err?.code === 'number' ? err.code : 0,
          out: stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ''),
        }),
    );
  });
}

describe('backfill progress on a terminal', () => {
  let sim: Simulator;
  let configFile: string;
  const dir = mkdtempSync(join(tmpdir(), 'backfill-tty-'));
  const to = Math.floor(Date.now() / MINUTE) * MINUTE - 10 * MINUTE;

  beforeAll(async () => {
    ensureBuilt();
    sim = await startSimulator({ quotas: { metrics: { calls: 5, periodMs: 2_000 } } });
    configFile = join(dir, 'collector.yaml');
    writeFileSync(
      configFile,
      stringify({
        api: { baseUrl: sim.url, token: sim.token, timeout: '5s' },
        accounts: sim.accounts.slice(0, 1),
        quotas: { metrics: { calls: 5, period: '2s' } },
        jobs: {
          metrics: { window: '1m', byResource: false },
          statistic: { enabled: false },
          streamstat: { enabled: false },
          dvr: { enabled: false },
        },
        sink: { type: 'file', path: join(dir, 'points.lp') },
        output: { deadLetterPath: join(dir, 'dead-letters.jsonl') },
        state: { dir: join(dir, 'state') },
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the plan ETA under the quota while waiting, then the summary with points, duration, calls', async () => {
    const from = new Date(to - 20 * MINUTE).toISOString();
    const { code, out } = await inPty(
      `node bin/cdn-collector.js backfill --config ${configFile} --from ${from} --to ${new Date(to).toISOString()}`,
    );
    expect(code, out).toBe(0);
    // 20 calls at 5 per 2 s: at least 3 full periods (6 s) before the last batch may go.
    const etas = [...out.matchAll(/(\d+)\/20 spans \| (\d+) calls left \| ETA (?:(\d+)m )?(\d+)s/g)].map((m) => ({
      done: Number(m[1]),
      left: Number(m[2]),
      etaSec: Number(m[3] ?? 0) * 60 + Number(m[4]),
    }));
    expect(etas.length, out).toBeGreaterThan(1);
    expect(etas[0]).toMatchObject({ done: 0, left: 20 });
    expect(etas[0]!.etaSec).toBeGreaterThanOrEqual(6);
    // While spans are still to come the ETA never reads 0.
    for (const e of etas.filter((x) => x.left > 5)) expect(e.etaSec, out).toBeGreaterThan(0);
    expect(out).toMatch(/backfill done: 20\/20 spans, \d+ points in \d+s; calls: metrics 20/);
  }, 90_000);

  it('Ctrl-C stops after the spans under way, prints the command that resumes; it finishes the rest', async () => {
    const from = new Date(to - 60 * MINUTE).toISOString();
    const until = new Date(to - 30 * MINUTE).toISOString();
    const stateDir = join(dir, 'state');
    const checkpointTime = () =>
      readdirSync(stateDir)
        .filter((n) => n.startsWith('cp-'))
        .map((n) => statSync(join(stateDir, n)).mtimeMs)
        .join();
    const before = checkpointTime();
    const run = spawnEntry(['backfill', '--config', configFile, '--from', from, '--to', until]);
    await waitFor(
      'a span confirmed by this run',
      async () => (checkpointTime() !== before ? true : undefined),
      30_000,
      run.output,
    );
    run.child.kill('SIGINT');
    expect(await run.exited, run.output()).toBe(130);
    const resume = /Resume with:\n {2}(cdn-collector backfill .*)\n/.exec(run.output())?.[1];
    expect(resume, run.output()).toBe(`cdn-collector backfill --config ${configFile} --from ${from} --to ${until}`);
    expect(run.output()).toMatch(/backfill cancelled: \d+\/30 spans/);
    expect(run.output()).toMatch(
      /backfill stopped by SIGINT: the spans collected are checkpointed; .*resume with: cdn-collector backfill/,
    );

    const again = spawnEntry(resume!.split(' ').slice(1));
    expect(await again.exited, again.output()).toBe(0);
    const done = /backfill done: (\d+)\/(\d+) spans/.exec(again.output());
    expect(Number(done?.[1])).toBeGreaterThan(0);
    expect(Number(done?.[2])).toBeLessThan(30); // only what the first run left
  }, 90_000);

  it('states why a --to inside a window yields 0 spans', async () => {
    const { code, out } = await inPty(
      `node bin/cdn-collector.js backfill --config ${configFile} --from ${new Date(to - 5 * MINUTE).toISOString()} ` +
        `--to ${new Date(to - 4.5 * MINUTE).toISOString()} --dry-run`,
    );
    expect(code, out).toBe(0);
    expect(out).toMatch(/0 spans in 1 job\b/);
    expect(out).toMatch(/note: --to \S+ cuts the 1-minute window \S+–\S+ of metrics: it is not collected/);
    expect(out).toMatch(/0 spans: every window in the range is collected already, or cut by the notes above/);
  }, 60_000);
});
