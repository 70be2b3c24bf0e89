import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInfluxV2Sink } from '../../src/sink/influx-v2.js';
import { SCHEMA } from '../../src/schema/schema.js';
import { fluxReader } from '../../src/verify/readers/flux.js';

/**
 * InfluxDB 2's query and write APIs without Docker: a loopback server answering as InfluxDB 2 documents it — the
 * annotated CSV of `POST /api/v2/query` (`#datatype`, `#group`, `#default` rows, then a header with the leading
 * `result,table` columns) and the JSON error bodies `{"code": …, "message": …}` of both APIs.
 */
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Answer = { status: number; type?: string; body: string; headers?: Record<string, string> };

let server: Server;
let url: string;
const seen: Seen[] = [];
let answer: (req: Seen) => Answer = () => ({ status: 204, body: '' });

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw).toString() : raw.toString();
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(request);
      const a = answer(request);
      res
        .writeHead(a.status, { 'content-type': a.type ?? 'application/json; charset=utf-8', ...a.headers })
        .end(a.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 20);
const CSV = [
  '#datatype,string,long,dateTime:RFC3339,double,string,string',
  '#group,false,false,false,false,true,true',
  '#default,_result,,,,,',
  ',result,table,_time,_value,_field,account',
  ',,0,2026-11-20T00:00:00Z,1500,hits,acme',
  ',,0,2026-11-21T00:00:00Z,2500,hits,acme',
  ',,1,2026-11-20T00:00:00Z,288,__points,acme',
  ',,1,2026-11-21T00:00:00Z,288,__points,acme',
  '',
].join('\r\n');

describe('the Flux reader against InfluxDB 2 (loopback, annotated CSV)', () => {
  const query = {
    measurement: 'cdn_traffic',
    fields: ['hits'],
    from: T0,
    to: T0 + 2 * DAY,
    windowMs: DAY,
    accounts: ['acme'],
  };

  it('posts the Flux to /api/v2/query with the org and token, reads the sums and point counts per window', async () => {
    seen.length = 0;
    answer = () => ({ status: 200, type: 'text/csv; charset=utf-8', body: CSV });
    const reader = fluxReader({ url, token: 'flux-token-1234', org: 'cdn-org', bucket: 'cdn' });
    const sums = await reader.sums(query);
    expect(sums).toEqual([
      { account: 'acme', time: T0, values: { hits: 1500 }, points: 288 },
      { account: 'acme', time: T0 + DAY, values: { hits: 2500 }, points: 288 },
    ]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe('/api/v2/query?org=cdn-org');
    expect(seen[0]!.headers.authorization).toBe('Token flux-token-1234');
    expect(JSON.parse(seen[0]!.body).query).toContain('from(bucket: "cdn")');
  });

  it('an error body (a Flux that does not compile, a bad token) is a VerifyReadError with its text', async () => {
    const reader = fluxReader({ url, token: 't', org: 'cdn-org', bucket: 'cdn' });
    answer = () => ({
      status: 400,
      body: JSON.stringify({ code: 'invalid', message: 'compilation failed: error at 1:1' }),
    });
    await expect(reader.sums(query)).rejects.toThrow(/Flux query of cdn_traffic failed: .*compilation failed/);
    answer = () => ({ status: 401, body: JSON.stringify({ code: 'unauthorized', message: 'unauthorized access' }) });
    await expect(reader.sums(query)).rejects.toThrow(/unauthorized access/);
  });
});

describe('the v2 sink against InfluxDB 2 write errors (loopback)', () => {
  const point = (hits: number | string) => ({
    measurement: 'cdn_traffic',
    tags: { account: 'acme' },
    fields: { hits },
    time: T0,
  });
  const sink = (dir: string) =>
    createInfluxV2Sink({
      url,
      token: 'write-token-5678',
      org: 'cdn-org',
      bucket: 'cdn',
      deadLetterPath: join(dir, 'dead.jsonl'),
      schema: SCHEMA,
    });

  it('204 confirms; the request is /api/v2/write with org, bucket, precision and the token', async () => {
    seen.length = 0;
    answer = () => ({ status: 204, body: '' });
    const s = sink(mkdtempSync(join(tmpdir(), 'v2-')));
    expect(await s.write([point(1)])).toMatchObject({ written: 1, rejected: 0 });
    expect(seen[0]!.url).toBe('/api/v2/write?org=cdn-org&bucket=cdn&precision=s');
    expect(seen[0]!.headers.authorization).toBe('Token write-token-5678');
    expect(seen[0]!.body).toBe(`cdn_traffic,account=acme hits=1i ${T0 / 1000}`);
    await s.close();
  });

  it('a 422 partial write (field type conflict) dead-letters the line as refused, naming the cause', async () => {
    answer = () => ({
      status: 422,
      body: JSON.stringify({
        code: 'unprocessable entity',
        message:
          'failure writing points to database: partial write: field type conflict: input field "hits" on measurement ' +
          '"cdn_traffic" is type integer, already exists as type string dropped=1',
      }),
    });
    const dir = mkdtempSync(join(tmpdir(), 'v2-'));
    const s = sink(dir);
    const result = await s.write([point(2)]);
    expect(result).toMatchObject({ written: 0, rejected: 1 });
    expect(readFileSync(join(dir, 'dead.jsonl'), 'utf8')).toContain('field type conflict');
    await s.close();
  });

  it("401 and 404 (no such bucket) fail the write with the server's text, not the token; no dead letters", async () => {
    for (const [status, message] of [
      [401, 'unauthorized access'],
      [404, 'bucket "cdn" not found'],
    ] as const) {
      answer = () => ({
        status,
        body: JSON.stringify({ code: status === 401 ? 'unauthorized' : 'not found', message }),
      });
      const dir = mkdtempSync(join(tmpdir(), 'v2-'));
      const s = sink(dir);
      const err = await s.write([point(3)]).catch((e: unknown) => e as Error);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toContain(`HTTP ${status}: ${message}`);
      expect((err as Error).message).not.toContain('write-token-5678');
      await s.close();
    }
  });
});
