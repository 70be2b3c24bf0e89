/**
 * A cancelled backfill stays cancelled: its range belongs to the command that asked for it, not to the daemon. The
 * daemon runs a handed-over backfill, Ctrl-C cancels it, and the daemon's next passes make no call inside the
 * cancelled range (they used to take the whole rest of it as gaps). `status` lists the unfinished range with its
 * resume command; running that command completes the range exactly: every window read once, none missing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillArgs } from '../helpers/cli.js';
import { type DaemonBeside, runEntry, startDaemonBeside } from '../helpers/daemon-beside.js';
import { spawnEntry, waitFor, type Entry } from '../ops/entry.js';

const MINUTE = 60_000;

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
  let daemon: Entry;
  let configFile: string;
  let dir: string;
  /** Metrics calls seen, by `account start end`. */
  let reads: Map<string, number>;
  let beside: DaemonBeside | undefined;

  beforeAll(async () => {
    beside = await startDaemonBeside('cancel-owned-', { log: { level: 'debug' } });
    ({ daemon, configFile, dir, reads } = beside);
  }, 120_000);

  afterAll(async () => {
    await beside?.close();
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
    const passes = () => daemon.output().split('"event":"job_pass"').length - 1;
    const seen = passes();
    await waitFor('two daemon passes', async () => (passes() >= seen + 4 ? true : undefined), 60_000, daemon.output);
    expect(inRange().length).toBe(done);

    const status = await runEntry(['status', '--config', configFile, '--json']);
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
    const text = await runEntry(['status', '--config', configFile]);
    expect(text.stdout).toContain(unfinished[0]!.resume);

    // The resume command, as status gives it.
    const resume = unfinished[0]!.resume.split(' ').slice(1);
    const again = await runEntry([...resume, '--json']);
    expect(again.code, `${again.output}\n${daemon.output()}`).toBe(0);
    const result = JSON.parse(again.stdout) as { state: string; spans: number };
    expect(result.state).toBe('done');
    expect(result.spans).toBe(60 - done);
    expect(inRange().length).toBe(60);
    expect([...reads].filter(([, n]) => n > 1)).toEqual([]);
    const after = await runEntry(['status', '--config', configFile, '--json']);
    expect((JSON.parse(after.stdout) as { unfinishedBackfills: Unfinished[] }).unfinishedBackfills).toEqual([]);
  }, 240_000);
});
