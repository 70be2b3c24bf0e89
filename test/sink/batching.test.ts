import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Point } from '../../src/points.js';
import type { DeadLetter } from '../../src/sink/dead-letter.js';
import { SinkError } from '../../src/sink/errors.js';
import { createSink, type SinkConfig } from '../../src/sink/index.js';
import type { SinkObserver } from '../../src/sink/types.js';
import { startFakeWriteServer, type Responder } from './fake-server.js';
import { testSchema } from './schema.js';

const schema = testSchema({ m: { v: 'integer', f: 'float' }, other: { v: 'integer' } });
const T0 = Date.UTC(2024, 0, 1);
const points = (n: number, measurement = 'm'): Point[] =>
  Array.from({ length: n }, (_, i) => ({
    measurement,
    tags: { n: String(i % 7) },
    fields: { v: i },
    time: T0 + i * 60_000,
  }));
const PASSWORD = 's3cret-pa55';
const TOKEN = 'tok-abc-123';

let dir: string;
let fake: Awaited<ReturnType<typeof startFakeWriteServer>> | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sink-batching-'));
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function serve(respond?: Responder) {
  fake = await startFakeWriteServer(respond);
  return fake;
}

function v1(url: string, extra: Partial<SinkConfig> = {}) {
  return createSink({
    type: 'influx-v1',
    url,
    database: 'db',
    username: 'admin',
    password: PASSWORD,
    deadLetterPath: join(dir, 'dead.jsonl'),
    schema,
    ...extra,
  } as SinkConfig);
}

function v2(url: string, extra: Partial<SinkConfig> = {}) {
  return createSink({
    type: 'influx-v2',
    url,
    token: TOKEN,
    org: 'o',
    bucket: 'b',
    deadLetterPath: join(dir, 'dead.jsonl'),
    schema,
    ...extra,
  } as SinkConfig);
}

async function deadLetters(): Promise<DeadLetter[]> {
  const text = await readFile(join(dir, 'dead.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as DeadLetter);
}

function recordingObserver() {
  const seen = { written: new Map<string, number>(), dead: 0 };
  const observer: SinkObserver = {
    pointsWritten: (m, n) => seen.written.set(m, (seen.written.get(m) ?? 0) + n),
    deadLetters: (n = 1) => (seen.dead += n),
  };
  return { seen, observer };
}

async function rejectionOf(promise: Promise<unknown>): Promise<SinkError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SinkError);
  return err as SinkError;
}

describe('batching and backpressure', () => {
  it('splits into batches of batchSize with at most maxInFlight requests open, every line sent once', async () => {
    const server = await serve();
    const sink = v1(server.url, { batchSize: 1000, maxInFlight: 2 });
    expect(await sink.write(points(10_500))).toEqual({ written: 10_500, rejected: 0 });
    expect(server.requests).toHaveLength(11);
    expect(server.maxOpen).toBeLessThanOrEqual(2);
    const lines = server.requests.flatMap((r) => r.body.split('\n'));
    expect(new Set(lines).size).toBe(10_500);
    await sink.close();
  });

  it('sends one request at a time with maxInFlight 1', async () => {
    const server = await serve();
    const sink = v1(server.url, { batchSize: 100, maxInFlight: 1 });
    await sink.write(points(1000));
    expect(server.requests).toHaveLength(10);
    expect(server.maxOpen).toBe(1);
    await sink.close();
  });

  it('concurrent small writes share requests, and each resolves with its own counts', async () => {
    const server = await serve();
    const sink = v1(server.url, { batchSize: 100, maxInFlight: 1 });
    const all = points(200);
    const writes = Array.from({ length: 20 }, (_, i) => sink.write(all.slice(i * 10, i * 10 + 10)));
    expect(await Promise.all(writes)).toEqual(writes.map(() => ({ written: 10, rejected: 0 })));
    // 20 writes of 10 lines: the first goes out alone, the rest fill requests of up to 100 lines.
    expect(server.requests.length).toBeLessThanOrEqual(3);
    expect(new Set(server.requests.flatMap((r) => r.body.split('\n'))).size).toBe(200);
    await sink.close();
  });

  it('reports confirmed points per measurement to the observer', async () => {
    const server = await serve();
    const { seen, observer } = recordingObserver();
    const sink = v1(server.url, { batchSize: 3, telemetry: observer });
    await sink.write([...points(5), ...points(2, 'other')]);
    expect(Object.fromEntries(seen.written)).toEqual({ m: 5, other: 2 });
    await sink.close();
  });
});

describe('permanent rejections go to the dead-letter file', () => {
  const BAD = 'v=13i';
  const partialWrite: Responder = (req) => {
    const bad = req.body.split('\n').filter((l) => l.includes(` ${BAD} `)).length;
    return bad === 0
      ? { status: 204 }
      : { status: 400, body: JSON.stringify({ error: `partial write: field type conflict dropped=${bad}` }) };
  };

  it('bisects a rejected batch so only the refused line is dead-lettered and counted', async () => {
    const server = await serve(partialWrite);
    const { seen, observer } = recordingObserver();
    const sink = v1(server.url, { batchSize: 64, telemetry: observer });
    const result = await sink.write(points(64));
    expect(result).toEqual({
      written: 63,
      rejected: 1,
      refusals: [expect.objectContaining({ cause: 'field-type-conflict', points: 1, measurements: ['m'] })],
    });
    const letters = await deadLetters();
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      sink: 'influx-v1',
      status: 400,
      reason: expect.stringContaining('field type conflict'),
    });
    expect(letters[0]!.lines).toHaveLength(1);
    expect(letters[0]!.lines[0]).toContain(` ${BAD} `);
    expect(Date.parse(letters[0]!.time)).not.toBeNaN();
    expect(seen.dead).toBe(1);
    expect(seen.written.get('m')).toBe(63);
    await sink.close();
  });

  it('dead-letters a batch whole, in one request, when the server dropped every line', async () => {
    const server = await serve((req) => ({
      status: 400,
      body: JSON.stringify({ error: `conflict dropped=${req.body.split('\n').length}` }),
    }));
    const sink = v1(server.url, { batchSize: 50 });
    expect(await sink.write(points(50))).toEqual({
      written: 0,
      rejected: 50,
      refusals: [expect.objectContaining({ cause: 'other', points: 50 })],
    });
    expect(server.requests).toHaveLength(1);
    expect((await deadLetters())[0]!.lines).toHaveLength(50);
    await sink.close();
  });

  it('bounds the requests spent narrowing down, then dead-letters the rest whole', async () => {
    const server = await serve(() => ({ status: 422, body: JSON.stringify({ code: 'invalid', message: 'nope' }) }));
    const sink = v2(server.url, { batchSize: 1000, maxSplitRequests: 6 } as Partial<SinkConfig>);
    expect(await sink.write(points(1000))).toEqual({
      written: 0,
      rejected: 1000,
      refusals: [expect.objectContaining({ cause: 'other', points: 1000, reason: 'nope' })],
    });
    expect(server.requests.length).toBeLessThanOrEqual(7);
    const letters = await deadLetters();
    expect(letters.reduce((n, l) => n + l.lines.length, 0)).toBe(1000);
    expect(letters[0]).toMatchObject({ sink: 'influx-v2', status: 422, reason: 'nope' });
    await sink.close();
  });

  it('dead-letters points with no writable field or an unrepresentable tag, and writes the rest', async () => {
    const server = await serve();
    const sink = v1(server.url);
    const result = await sink.write([
      ...points(2),
      { measurement: 'm', tags: {}, fields: { f: NaN }, time: T0 },
      { measurement: 'm', tags: { host: 'ends\\' }, fields: { v: 1 }, time: T0 },
    ]);
    expect(result).toEqual({ written: 2, rejected: 2 });
    const letters = await deadLetters();
    expect(letters.map((l) => l.status)).toEqual([0, 0]);
    expect(letters[1]!.reason).toContain('backslash');
    expect(JSON.parse(letters[1]!.lines[0]!)).toMatchObject({ tags: { host: 'ends\\' } });
    await sink.close();
  });

  it('fails the write (retryable) when the dead letters cannot be recorded', async () => {
    const server = await serve(() => ({ status: 400, body: '{"error":"bad"}' }));
    // A regular file where the directory should be: the append fails with ENOTDIR.
    await writeFile(join(dir, 'not-a-dir'), '');
    const sink = v1(server.url, { deadLetterPath: join(dir, 'not-a-dir', 'dead.jsonl') });
    const err = await rejectionOf(sink.write(points(1)));
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('dead letters');
    await sink.close();
  });
});

describe('transient and fatal failures reject with a typed SinkError', () => {
  it('5xx and 429 are retryable, and nothing is dead-lettered', async () => {
    for (const status of [500, 503, 429]) {
      const server = await serve(() => ({ status, body: '{"error":"busy"}' }));
      const sink = v1(server.url);
      const err = await rejectionOf(sink.write(points(10)));
      expect(err).toMatchObject({ sink: 'influx-v1', status, retryable: true });
      expect(await deadLetters()).toEqual([]);
      await sink.close();
      await server.close();
      fake = undefined;
    }
  });

  it('401 is not retryable and the message holds neither password nor token', async () => {
    const server = await serve(() => ({ status: 401, body: '{"error":"authorization failed"}' }));
    const v1Sink = v1(server.url);
    const v1Err = await rejectionOf(v1Sink.write(points(1)));
    expect(v1Err).toMatchObject({ status: 401, retryable: false });
    expect(v1Err.message).toContain('authorization failed');
    const v2Sink = v2(server.url);
    const v2Err = await rejectionOf(v2Sink.write(points(1)));
    expect(v2Err).toMatchObject({ status: 401, retryable: false });
    for (const err of [v1Err, v2Err]) {
      expect(`${err.message} ${err.stack}`).not.toContain(PASSWORD);
      expect(`${err.message} ${err.stack}`).not.toContain(TOKEN);
    }
    await v1Sink.close();
    await v2Sink.close();
  });

  it('a refused connection is retryable with no status', async () => {
    const server = await serve();
    const url = server.url;
    await server.close();
    fake = undefined;
    for (const sink of [v1(url), v2(url)]) {
      const err = await rejectionOf(sink.write(points(3)));
      expect(err).toMatchObject({ status: undefined, retryable: true });
      expect(err.message).toContain('ECONNREFUSED');
      await sink.close();
    }
  });

  it('a server that never answers times out, retryable', async () => {
    const server = await serve(() => 'hang');
    for (const sink of [v1(server.url, { timeoutMs: 300 }), v2(server.url, { timeoutMs: 300 })]) {
      const err = await rejectionOf(sink.write(points(3)));
      expect(err).toMatchObject({ retryable: true });
      expect(err.message).toContain('timed out');
      await sink.close();
    }
  });

  it('rejects writes after close', async () => {
    const server = await serve();
    const sink = v1(server.url);
    await sink.close();
    expect((await rejectionOf(sink.write(points(1)))).retryable).toBe(false);
  });
});

describe('what goes over the wire', () => {
  it('v1: /write with db, rp, precision, basic auth; gzip when asked', async () => {
    const server = await serve();
    const sink = v1(server.url, { retentionPolicy: 'autogen', gzipLevel: 6, precision: 'ms' } as Partial<SinkConfig>);
    await sink.write(points(300)); // over the 4 KB below which bodies go uncompressed
    const req = server.requests[0]!;
    const url = new URL(req.url, server.url);
    expect(url.pathname).toBe('/write');
    expect(Object.fromEntries(url.searchParams)).toEqual({ db: 'db', rp: 'autogen', precision: 'ms' });
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`);
    expect(req.headers['content-encoding']).toBe('gzip');
    expect(req.body.split('\n').slice(0, 2)).toEqual([`m,n=0 v=0i ${T0}`, `m,n=1 v=1i ${T0 + 60_000}`]);
    await sink.close();
  });

  it('small bodies and gzip level 0 go uncompressed', async () => {
    const server = await serve();
    const small = v2(server.url);
    await small.write(points(2));
    const none = v2(server.url, { gzipLevel: 0 } as Partial<SinkConfig>);
    await none.write(points(100));
    expect(server.requests.map((r) => r.headers['content-encoding'])).toEqual([undefined, undefined]);
    expect(server.requests[1]!.body.split('\n')).toHaveLength(100);
    await small.close();
    await none.close();
  });

  it('a gzip level outside 0–9 is refused when the sink is made', () => {
    expect(() => v2('http://127.0.0.1:1', { gzipLevel: 10 } as Partial<SinkConfig>)).toThrow(
      /gzipLevel must be an integer 0–9, got 10/,
    );
  });

  it('v2: /api/v2/write with org, bucket, precision, token header; gzip by default for large bodies', async () => {
    const server = await serve();
    const sink = v2(server.url);
    await sink.write(points(300));
    const req = server.requests[0]!;
    const url = new URL(req.url, server.url);
    expect(url.pathname).toBe('/api/v2/write');
    expect(Object.fromEntries(url.searchParams)).toEqual({ org: 'o', bucket: 'b', precision: 's' });
    expect(req.headers.authorization).toBe(`Token ${TOKEN}`);
    expect(req.headers['content-encoding']).toBe('gzip');
    expect(req.body.split('\n')).toHaveLength(300);
    await sink.close();
  });
});

describe('gzip threshold', () => {
  it('bodies under gzipMinBytes go uncompressed, bodies at or over it compressed', async () => {
    const server = await serve();
    const sink = v2(server.url, { gzipMinBytes: 1 << 20 } as Partial<SinkConfig>);
    await sink.write(points(300));
    const low = v2(server.url, { gzipMinBytes: 10 } as Partial<SinkConfig>);
    await low.write(points(1));
    expect(server.requests.map((r) => r.headers['content-encoding'])).toEqual([undefined, 'gzip']);
    expect(server.requests[0]!.body.split('\n')).toHaveLength(300);
    await sink.close();
    await low.close();
  });
});
