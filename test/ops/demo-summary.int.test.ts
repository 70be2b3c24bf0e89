import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { writeSimConfig } from '../helpers/collector.js';
import { INFLUXD_BIN, serverSkipReason, startInfluxV1, type InfluxV1Server } from '../helpers/servers.js';
import { useSimulator } from '../helpers/sim.js';
import { ensureBuilt } from './entry.js';

/**
 * What `demo` and `run --once` say when nothing could be written, and what a second demo says: the summary names the
 * cause with its fix, or why it had nothing to collect, and where the data and the state are.
 */
const dir = mkdtempSync(join(tmpdir(), 'demo-summary-'));
beforeAll(() => ensureBuilt());
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CREATE_ABSENT = `influx -execute 'CREATE DATABASE "absent"'`;

/** One hour of history, one second live. */
const demo = (data: string, env: Record<string, string> = {}) =>
  runCli(['demo', '--hours', '1', '--duration', '1s', '--data-dir', data], env, { killAfterMs: 110_000 }).exited;

describe.skipIf(serverSkipReason(INFLUXD_BIN) !== undefined)('a database that does not exist (InfluxDB 1.6.7)', () => {
  let db: InfluxV1Server;
  const s = useSimulator();
  beforeAll(async () => {
    db = await startInfluxV1();
  });
  afterAll(() => db?.stop());

  it('demo: the summary names it with CREATE DATABASE, skips the live part and exits 4', async () => {
    const data = join(dir, 'missing-db');
    const env = { INFLUX_URL: db.url, INFLUX_DATABASE: 'absent' };
    const run = await demo(data, env);
    expect(run.code, run.stdout + run.stderr).toBe(4);
    expect(run.stdout).toMatch(/missing windows: [1-9]\d* — the sink takes no write: database absent not found/);
    expect(run.stdout).toContain(`create it, ${CREATE_ABSENT}, or check sink.database / INFLUX_DATABASE`);
    expect(run.stdout).toContain('Not collecting live: the sink takes no write');
    expect(run.stdout).not.toContain('Collecting live');
    expect(run.stdout).toContain(`  data: influx-v1: ${db.url} database absent`);
  }, 120_000);

  it('run --once: the verdict (exit 4, windows failed) is followed by one line: the cause and the fix', async () => {
    const sub = join(dir, 'once');
    const jobs = { dvr: { enabled: false }, statistic: { enabled: false }, streamstat: { enabled: false } };
    const sink = { type: 'influx-v1', url: db.url, database: 'absent' };
    const state = { dir: join(sub, 'state'), initialLookback: '15m' };
    const config = writeSimConfig(dir, s.sim, { jobs, sink, state });
    const run = await runCli(['run', '--once', '--config', config], {}, { killAfterMs: 110_000 }).exited;
    expect(run.code, run.stdout + run.stderr).toBe(4);
    const lines = run.stdout.trim().split('\n');
    expect(lines.at(-2)).toMatch(/^once: FAILED: 0 windows collected/);
    expect(lines.at(-1)).toBe(
      'once: cause: the sink takes no write: database absent not found (HTTP 404: database not found: "absent") ' +
        `(no database absent: create it, ${CREATE_ABSENT}, or check sink.database / INFLUX_DATABASE)`,
    );
  }, 120_000);
});

describe('a second demo in the same data directory', () => {
  it('says the checkpoints already cover the range, and how to start over; both summaries say where', async () => {
    const data = join(dir, 'twice');
    const first = await demo(data);
    const second = await demo(data);
    expect([first.code, second.code], second.stderr).toEqual([0, 0]);
    const spans = (run: { stdout: string }) => Number(/Backfilling the last 1 h: (\d+) spans/.exec(run.stdout)?.[1]);
    expect(first.stdout).toMatch(/Backfilling the last 1 h: [1-9]\d* spans…/);
    // A window that fell due between the two demos is the second's to collect; everything else is checkpointed.
    const startOver = `to start over, delete ${data} or pass another --data-dir`;
    expect(second.stdout).toContain(
      spans(second) === 0
        ? `Backfilling the last 1 h: 0 spans: the checkpoints in ${join(data, 'state')} (an earlier demo) already ` +
            `cover it; ${startOver}`
        : `Backfilling the last 1 h: ${spans(second)} spans (the checkpoints in ${join(data, 'state')} cover the ` +
            `rest; ${startOver})`,
    );
    expect(spans(second)).toBeLessThan(spans(first) / 2);
    for (const run of [first, second]) {
      expect(run.stdout).toContain(`  data: file: ${join(data, 'points.lp')}\n`);
      expect(run.stdout).toContain(`  state: ${join(data, 'state')} (checkpoints:`);
    }
  }, 120_000);
});
