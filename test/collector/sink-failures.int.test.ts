import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createRuntime } from '../../src/app/runtime.js';
import { parseConfig } from '../../src/config/loader.js';
import { FailureLines, FAILURE_SUMMARY_MS } from '../../src/telemetry/failure-lines.js';
import { watchedSink } from '../../src/telemetry/sink-watch.js';
import { createInfluxV1Sink } from '../../src/sink/influx-v1.js';
import { CheckpointStore } from '../../src/state/checkpoints.js';
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { fakeJob, lastErrors, MIN, offlineCollector, T0 } from '../helpers/fake-job.js';
import { freePort } from '../helpers/servers.js';
import { testSchema } from '../sink/schema.js';

interface Line {
  level: number;
  msg: string;
  event?: string;
  failedCalls?: number;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** An InfluxDB 1.x stand-in on `port` that takes every write (the database is back). */
async function databaseOn(port: number): Promise<Server> {
  const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  return server;
}

/**
 * A database that is down for several passes is logged as a failing API is: one error line at the first failed
 * write, with the fix; one summary a minute; one line when writes pass again — not a warning per span, retry, pass.
 */
describe('sink failures in the log', () => {
  it('one error line with the fix, a summary a minute, one recovery line; the job loses its last error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sink-failures-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const port = await freePort(); // nothing listens: InfluxDB stopped
    const url = `http://127.0.0.1:${port}`;
    const clock = new ManualClock(T0 + 4 * MIN);
    const { log, text } = capturedLogger();
    const schema = testSchema({ m: { v: 'float' } });
    const influx = createInfluxV1Sink({ url, database: 'cdn', deadLetterPath: join(dir, 'dead.jsonl'), schema });
    const telemetry = new Telemetry({ clock });
    const config = { type: 'influx-v1', url, database: 'cdn' } as never;
    const sink = watchedSink(influx, config, telemetry, new FailureLines(log, clock));
    const store = await CheckpointStore.open(join(dir, 'state'));
    cleanups.push(() => store.close());
    const job = fakeJob(() => 1);
    const collector = offlineCollector({
      jobs: [job],
      sink,
      store,
      telemetry,
      clock,
      log,
      horizonMs: 24 * 60 * MIN,
      initialLookbackMs: 4 * MIN,
      sinkRetryMs: 0,
    });
    cleanups.push(() => sink.close());
    const loud = () =>
      text()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Line)
        .filter((l) => l.level >= 30 && l.event !== 'set_aside_collected');

    // Seven passes 30 s apart (virtual time), each giving up on its first failed write (no retry wait to race).
    for (let pass = 0; pass < 7; pass++) {
      if (pass > 0) clock.advance(30_000);
      expect((await collector.tick())[0]!.error).toMatch(/ECONNREFUSED/);
    }
    const failing = loud();
    expect(failing[0]).toMatchObject({ level: 50, event: 'failing', sink: 'influx-v1', reason: 'ECONNREFUSED' });
    expect(failing[0]!.msg).toContain('check sink.url / INFLUX_URL');
    // Failures at 0, 30 s … 180 s: a summary at 60, 120 and 180 s.
    const summary = expect.objectContaining({ level: 40, event: 'still_failing', sink: 'influx-v1' });
    expect(failing.slice(1)).toEqual(Array.from({ length: (6 * 30_000) / FAILURE_SUMMARY_MS }, () => summary));
    expect(lastErrors(collector)[job.key]?.error).toMatch(/ECONNREFUSED/);

    await databaseOn(port);
    const after = await collector.tick();
    expect(after[0]!.error).toBeUndefined();
    await collector.tick();
    const recovered = loud().slice(failing.length);
    expect(recovered).toEqual([expect.objectContaining({ level: 30, event: 'answers_again', sink: 'influx-v1' })]);
    expect(recovered[0]!.failedCalls).toBe(7);
    expect(lastErrors(collector)).toEqual({}); // `status` shows no last error once the job works again
  });

  it("the runtime's sink is the watched one: a missing database is an error line naming CREATE DATABASE", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sink-failures-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const missing = '{"error":"database not found: \\"cdn\\""}';
    const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(404).end(missing)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
    const { port } = server.address() as { port: number };
    const config = parseConfig(
      {
        api: { baseUrl: 'http://127.0.0.1:9', token: 'sink-failures-token' },
        accounts: ['acme'],
        sink: { type: 'influx-v1', url: `http://127.0.0.1:${port}`, database: 'cdn' },
        output: { deadLetterPath: join(dir, 'dead.jsonl') },
        state: { dir: join(dir, 'state') },
      },
      {},
    );
    const { log, text } = capturedLogger();
    const rt = await createRuntime(config, new ManualClock(T0), log);
    cleanups.push(() => rt.close());
    rt.telemetry.deadLetters(1); // something to write: the self-monitoring points
    await expect(rt.sink.write(rt.telemetry.toPoints())).rejects.toThrow(/404/);
    await expect(rt.sink.write(rt.telemetry.toPoints())).rejects.toThrow(/404/);
    const lines = text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line)
      .filter((l) => l.level >= 40);
    const fix = expect.stringContaining('CREATE DATABASE "cdn"');
    expect(lines).toEqual([expect.objectContaining({ level: 50, msg: fix })]);
  });
});
