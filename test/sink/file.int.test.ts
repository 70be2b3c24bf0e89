import { mkdtemp, open, readFile, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Point } from '../../src/points.js';
import { SinkError } from '../../src/sink/errors.js';
import { createSink } from '../../src/sink/index.js';
import { INFLUXD_BIN, serverSkipReason, startInfluxV1 } from '../helpers/servers.js';
import { testSchema } from './schema.js';

const schema = testSchema({ m: { v: 'integer', s: 'string' } });
const T0 = Date.UTC(2024, 0, 1);
const point = (i: number, tags: Record<string, string> = {}): Point => ({
  measurement: 'm',
  tags,
  fields: { v: i },
  time: T0 + i * 60_000,
});
/** The file's timestamps are nanoseconds (InfluxDB's default precision): epoch ms followed by six zeros. */
const ns = (ms: number) => `${ms}000000`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sink-file-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

const fileSink = (path: string, batchSize?: number) =>
  createSink({ type: 'file', path, deadLetterPath: join(dir, 'dead.jsonl'), schema, batchSize });

describe('file sink', () => {
  it('appends line protocol in the given order, across batches and writes, creating the directory', async () => {
    const path = join(dir, 'out', 'points.lp');
    const sink = fileSink(path, 2);
    expect(await sink.write([point(0, { host: 'a b' }), point(1), point(2)])).toEqual({ written: 3, rejected: 0 });
    await sink.write([{ measurement: 'm', tags: {}, fields: { s: 'say "hi"' }, time: T0 }]);
    await sink.flush();
    expect(await readFile(path, 'utf8')).toBe(
      `m,host=a\\ b v=0i ${ns(T0)}\nm v=1i ${ns(T0 + 60_000)}\n` +
        `m v=2i ${ns(T0 + 120_000)}\nm s="say \\"hi\\"" ${ns(T0)}\n`,
    );
    await sink.close();
  });

  it(
    'a write resolves only after its lines are synced to disk, ' +
      'one sync per batch (its confirmation advances the checkpoint)',
    async () => {
      const probe = await open(join(dir, 'probe'), 'w');
      const handleType = Object.getPrototypeOf(probe) as FileHandle;
      await probe.close();
      const events: string[] = [];
      for (const method of ['appendFile', 'sync', 'datasync'] as const) {
        const original = handleType[method] as (...args: unknown[]) => Promise<void>;
        vi.spyOn(handleType, method).mockImplementation(async function (this: FileHandle, ...args: unknown[]) {
          await original.apply(this, args);
          events.push(method === 'appendFile' ? 'append' : 'sync');
        });
      }
      const sink = fileSink(join(dir, 'points.lp'), 2);
      await sink.write([point(0), point(1), point(2), point(3), point(4)]);
      events.push('confirmed');
      // Syncs before the first append make the new file's directory entry durable; from then on each batch is synced.
      expect(events.slice(events.indexOf('append'))).toEqual([
        'append',
        'sync',
        'append',
        'sync',
        'append',
        'sync',
        'confirmed',
      ]);
      await sink.close();
    },
  );

  it('keeps what the file already holds', async () => {
    const path = join(dir, 'points.lp');
    await writeFile(path, 'earlier line\n');
    const sink = fileSink(path);
    await sink.write([point(0)]);
    await sink.close();
    expect(await readFile(path, 'utf8')).toBe(`earlier line\nm v=0i ${ns(T0)}\n`);
  });

  it('never glues its lines to a line left open (a process killed mid-write): it starts on a new line', async () => {
    const path = join(dir, 'points.lp');
    await writeFile(path, 'earlier line\nm v=1i 17040672000');
    const sink = fileSink(path);
    await sink.write([point(0)]);
    await sink.close();
    expect(await readFile(path, 'utf8')).toBe(`earlier line\nm v=1i 17040672000\nm v=0i ${ns(T0)}\n`);
  });

  it('writes to stdout for "-"', async () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const sink = fileSink('-');
    await sink.write([point(0), point(1)]);
    await sink.close();
    vi.restoreAllMocks();
    expect(written.join('')).toBe(`m v=0i ${ns(T0)}\nm v=1i ${ns(T0 + 60_000)}\n`);
  });

  it('a write error rejects with a retryable SinkError naming the path', async () => {
    await writeFile(join(dir, 'blocker'), '');
    const path = join(dir, 'blocker', 'points.lp');
    const sink = fileSink(path);
    const err = await sink.write([point(0)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SinkError);
    expect(err).toMatchObject({ sink: 'file', retryable: true });
    expect((err as SinkError).message).toContain(path);
    await sink.close();
  });
});

/**
 * What the README tells users to do: POST the file to InfluxDB's /write without a precision parameter. With seconds in
 * the file that stored 1970 dates; with nanoseconds every point lands at its own time (to the millisecond).
 */
describe.skipIf(serverSkipReason(INFLUXD_BIN) !== undefined)(
  'file sink output loaded into InfluxDB 1.6.7 as is',
  () => {
    it('POST /write with the default precision stores the dates the points carry', async () => {
      const path = join(dir, 'points.lp');
      const sink = fileSink(path);
      const times = [T0, T0 + 60_000, Date.UTC(2026, 10, 23, 22, 41, 7, 250)];
      await sink.write(times.map((time, i) => ({ measurement: 'm', tags: { host: 'h' }, fields: { v: i }, time })));
      await sink.close();
      const db = await startInfluxV1();
      try {
        await db.query('CREATE DATABASE lp');
        const res = await request(`${db.url}/write?db=lp`, { method: 'POST', body: await readFile(path) });
        expect(res.statusCode).toBe(204);
        await res.body.dump();
        const rows = await db.query('SELECT "v" FROM "m"', 'lp'); // times as epoch ms
        expect(rows.map((r) => [r.time, r.v])).toEqual(times.map((t, i) => [t, i]));
      } finally {
        await db.stop();
      }
    });
  },
);
