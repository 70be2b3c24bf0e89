import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { evaluateHealth } from '../../src/telemetry/health.js';
import { capturedRuntime, configIn } from '../helpers/collector.js';
import { loopbackServer } from '../helpers/loopback.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const DOWN = { status: 500, body: '{"error":"database is down"}' };
const CONFIRMED = { status: 204, body: '' };
const TYPE_CONFLICT = {
  status: 400,
  body: JSON.stringify({
    error:
      'partial write: field type conflict: input field "total" on measurement "cdn_collector" is type float, ' +
      'already exists as type string dropped=1',
  }),
};

/**
 * The sink's run of failures is one record: the log's lines, /healthz and /metrics read it, so they name the same
 * start and count, and the write that ends the run ends it for all of them.
 */
describe('one record of the sink failing', () => {
  it('the log and /healthz name the same start and count; the write the database answers ends both', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sink-record-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    // An InfluxDB 1.x stand-in answering each request as the test queues it; down (500) when nothing is queued.
    const answers: Array<{ status: number; body: string }> = [];
    const db = await loopbackServer((req, res) => {
      req.resume().on('end', () => {
        const { status, body } = answers.shift() ?? DOWN;
        res.writeHead(status, { 'content-type': 'application/json' }).end(body || undefined);
      });
    });
    cleanups.push(() => db.close());
    const config = configIn(dir, {
      api: { baseUrl: 'http://127.0.0.1:9', token: 'sink-record-token' },
      sink: { type: 'influx-v1', url: db.url, database: 'cdn' },
      // One line per request: a write of two points is two requests, which can end differently.
      output: { deadLetterPath: join(dir, 'dead.jsonl'), batchSize: 1 },
      http: { sinkFailingAfter: '2m' },
    });
    const { rt, clock, logLines } = await capturedRuntime(config);
    cleanups.push(() => rt.close());
    const [a, b] = rt.telemetry.toPoints();
    const sinkLines = () => logLines().filter((l) => l.level >= 30 && l.sink === 'influx-v1');
    const health = () => evaluateHealth(rt.telemetry, { maxLagMs: 3_600_000 });
    const metrics = () => rt.telemetry.prometheus();
    const iso = (ms: number) => new Date(ms).toISOString();

    // The first failed write: the log's first line, and the start of the run /healthz will name.
    clock.advance(10_000);
    const firstAt = clock.now();
    await expect(rt.sink.write([a!])).rejects.toThrow(/HTTP 500/);
    expect(sinkLines()).toEqual([expect.objectContaining({ event: 'failing', reason: 'HTTP 500' })]);

    // A write of which one request is confirmed and the other fails still failed: the run goes on from firstAt.
    clock.advance(60_000);
    answers.push(CONFIRMED);
    await expect(rt.sink.write([a!, b!])).rejects.toThrow(/HTTP 500/);
    expect(sinkLines().slice(1)).toEqual([
      expect.objectContaining({ event: 'still_failing', failedCalls: 2, sinceMs: clock.now() - firstAt }),
    ]);
    // A write that sends nothing tells nothing of the database: neither a recovery nor a failure.
    await rt.sink.write([]);
    expect(sinkLines()).toHaveLength(2);

    clock.advance(60_000);
    expect(health().reasons).toEqual({
      sink: `every write failed for 120 s (2 failed writes since ${iso(firstAt)})`,
    });
    expect(await metrics()).toMatch(/^cdn_collector_unhealthy\{condition="sink"\} 1$/m);
    expect(await metrics()).toMatch(/^cdn_collector_write_failures_total 2$/m);

    // The database answers again, refusing the write's one line: an answer, so the run ends here for every reader.
    answers.push(TYPE_CONFLICT);
    expect(await rt.sink.write([a!])).toMatchObject({ written: 0, rejected: 1 });
    expect(sinkLines().slice(2)).toEqual([
      expect.objectContaining({ event: 'answers_again', failedCalls: 2, sinceMs: clock.now() - firstAt }),
    ]);
    expect(health().status).toBe('ok');
    expect(await metrics()).not.toMatch(/condition="sink"/);

    // Confirmed writes after it: no run to end, no line.
    answers.push(CONFIRMED);
    expect(await rt.sink.write([a!])).toMatchObject({ written: 1 });
    expect(sinkLines()).toHaveLength(3);
    expect(health().status).toBe('ok');
  });
});
