/**
 * A database that fails while a writer waits for queue space (backpressure) must settle that writer: a failure that
 * leaves a promise pending makes `backfill` exit 13 ("unsettled top-level await") with no message.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Point } from '../../src/points.js';
import { SinkError } from '../../src/sink/errors.js';
import { createSink } from '../../src/sink/index.js';
import { loopbackServer, type LoopbackServer } from '../helpers/loopback.js';
import { testSchema } from '../sink/schema.js';

const schema = testSchema({ m: { v: 'integer' } });
const T0 = Date.UTC(2024, 0, 1);
const BATCH = 10; // queue capacity 30 with 2 requests in flight: 100 lines make the writer wait for space
const points = (n: number, tag = 'a'): Point[] =>
  Array.from({ length: n }, (_, i) => ({
    measurement: 'm',
    tags: { t: tag },
    fields: { v: i },
    time: T0 + i * 60_000,
  }));

let dir: string;
let server: LoopbackServer | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hostile-sink-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

function sinkAt(url: string) {
  return createSink({
    type: 'influx-v1',
    url,
    database: 'db',
    deadLetterPath: join(dir, 'dead.jsonl'),
    schema,
    batchSize: BATCH,
    maxInFlight: 2,
  });
}

/** Drains the request body, then answers with `status` (or drops the connection for 0). */
function answer(status: number) {
  return (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    req.resume();
    req.once('end', () =>
      status === 0 ? res.destroy() : res.writeHead(status).end(status >= 400 ? '{"error":"down"}' : ''),
    );
  };
}

describe('a failed write wakes the writer waiting for queue space', { timeout: 5000 }, () => {
  it.each([
    [500, 'answers 500'],
    [0, 'drops connections'],
    [404, 'answers 404 (not retryable)'],
  ])('one write of 10 × batchSize lines rejects with a SinkError when the database %s', async (status) => {
    server = await loopbackServer(answer(status));
    const sink = sinkAt(server.url);
    const err = await sink.write(points(10 * BATCH)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SinkError);
    // The failure stopped the writer: it did not go on sending the rest of its lines.
    expect(server.requests.length).toBeLessThanOrEqual(2);
    await sink.close();
  });

  it('another writer waiting for space goes on when a failed write frees the queue, and completes', async () => {
    server = await loopbackServer((req, res, seen) => answer(seen <= 2 ? 500 : 204)(req, res));
    const sink = sinkAt(server.url);
    const first = sink.write(points(10 * BATCH, 'first')).catch((e: unknown) => e);
    const second = sink.write(points(3 * BATCH, 'second'));
    expect(await first).toBeInstanceOf(SinkError);
    expect(await second).toEqual({ written: 3 * BATCH, rejected: 0 });
    await sink.close();
  });

  it('a writer waiting for space when the sink is closed rejects', async () => {
    server = await loopbackServer(() => {}); // never answers: the queue stays full
    const sink = sinkAt(server.url);
    const waiting = sink.write(points(10 * BATCH)).catch((e: unknown) => e);
    while (server.requests.length < 2) await new Promise((r) => setImmediate(r));
    await server.close();
    server = undefined;
    await sink.close();
    expect(await waiting).toBeInstanceOf(SinkError);
  });
});
