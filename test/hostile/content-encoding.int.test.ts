import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { brotliCompressSync, constants, createGzip, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HttpClient } from '../../src/http/client.js';
import { isRetryable } from '../../src/failure.js';
import { ContentEncodingError } from '../../src/http/errors.js';
import { NO_QUOTAS } from '../../src/sim/quota.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { runCli } from '../helpers/cli.js';
import { writeSimConfig } from '../helpers/collector.js';
import { loopbackServer, type LoopbackServer } from '../helpers/loopback.js';

const BODY = { status: 'OK', data: [{ resource: 'r1', value: 42, name: 'Видео "live"' }] };
const TEXT = Buffer.from(JSON.stringify(BODY));
const MB = 1024 * 1024;

function answer(res: ServerResponse, coding: string, body: Buffer): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding }).end(body);
}

/** Sends `packets` one by one, each after the last was flushed, so the client reads them as separate chunks. */
function streamPackets(res: ServerResponse, packets: Buffer[]): void {
  const next = (i: number): void => {
    if (i === packets.length) return void res.end();
    res.write(packets[i], () => setImmediate(() => next(i + 1)));
  };
  next(0);
}

/** 100 MB of JSON text gzipped (about 100 KB): a body that is harmless on the wire and huge once inflated. */
async function gzipBomb(): Promise<Buffer> {
  const gzip = createGzip({ level: constants.Z_BEST_COMPRESSION });
  const out: Buffer[] = [];
  gzip.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((resolve) => gzip.on('end', resolve));
  const chunk = Buffer.alloc(MB, 'x');
  gzip.write('"');
  for (let i = 0; i < 100; i++) gzip.write(chunk);
  gzip.end('"');
  await done;
  return Buffer.concat(out);
}

describe('compressed answers', () => {
  let server: LoopbackServer | undefined;
  let http: HttpClient | undefined;
  afterEach(async () => {
    await http?.close();
    await server?.close();
    server = http = undefined;
  });

  async function get(respond: (res: ServerResponse) => void, maxBodyBytes?: number): Promise<unknown> {
    server = await loopbackServer((_req, res) => respond(res));
    http = new HttpClient({ baseUrl: server.url, token: 'tok-123456', ...(maxBodyBytes ? { maxBodyBytes } : {}) });
    return http.request({ api: 'statistic', method: 'GET', path: '/x', schema: z.unknown() }).then(
      (r) => r.body,
      (e: unknown) => e,
    );
  }

  it('every request asks for the codings the client decodes', async () => {
    await get((res) => void res.writeHead(200).end('{}'));
    expect(server!.requests[0]!.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  const codings: Array<[string, (b: Buffer) => Buffer]> = [
    ['gzip', gzipSync],
    ['x-gzip', gzipSync],
    ['GZIP', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
    ['identity', (b) => b],
    // Stacked: applied in the order listed, so undone in reverse.
    ['gzip, br', (b) => brotliCompressSync(gzipSync(b))],
    ['deflate, identity, gzip', (b) => gzipSync(deflateSync(b))],
  ];
  for (const [coding, encode] of codings) {
    it(`Content-Encoding: ${coding} is decoded`, async () => {
      expect(await get((res) => answer(res, coding, encode(TEXT)))).toEqual(BODY);
    });
  }

  it('a coding the client cannot decode is a named error that is not retried', async () => {
    const err = await get((res) => answer(res, 'zstd', TEXT));
    expect(err).toBeInstanceOf(ContentEncodingError);
    expect(err).toMatchObject({ code: 'CDN_ERR_CONTENT_ENCODING', coding: 'zstd', problem: 'unsupported' });
    expect(err).toMatchObject({ status: 200 });
    expect(isRetryable(err)).toBe(false);
    expect((err as Error).message).toMatch(
      new RegExp(
        /GET http:\/\/127\.0\.0\.1:\d+\/x → HTTP 200: Content-Encoding "zstd" is not supported /.source +
          /\(the collector decodes gzip, x-gzip, deflate, br, identity\)/.source,
      ),
    );
  });

  it('a gzip stream cut off is a named, retryable error (like any body cut off in transit)', async () => {
    const whole = gzipSync(Buffer.from(JSON.stringify({ data: 'y'.repeat(50_000) })));
    const err = await get((res) => answer(res, 'gzip', whole.subarray(0, whole.length - 100)));
    expect(err).toBeInstanceOf(ContentEncodingError);
    expect(err).toMatchObject({ coding: 'gzip', problem: 'corrupt' });
    expect(isRetryable(err)).toBe(true);
    expect((err as Error).message).toMatch(
      /the gzip body cannot be decoded \(corrupt or cut off\): unexpected end of file/,
    );
  });

  it('bytes that are not gzip under Content-Encoding: gzip are a named error, not "body is not JSON"', async () => {
    const err = await get((res) => answer(res, 'gzip', TEXT));
    expect(err).toMatchObject({ name: 'ContentEncodingError', coding: 'gzip', problem: 'corrupt' });
  });

  // What proxies and servers send that curl and browsers decode: the gzip member is the body (bytes after it are
  // ignored), and `deflate` is zlib's format or, as many servers send it, raw DEFLATE data.
  const asProxiesSend: Array<[string, string, Buffer[]]> = [
    ['gzip followed by CR LF, in the same packet', 'gzip', [Buffer.concat([gzipSync(TEXT), Buffer.from('\r\n')])]],
    ['gzip followed by CR LF, in a later packet', 'gzip', [gzipSync(TEXT), Buffer.from('\r\n')]],
    ['gzip followed by stray text', 'x-gzip', [gzipSync(TEXT), Buffer.from('<html>junk</html>\n')]],
    ['gzip sent a byte at a time', 'gzip', [...gzipSync(TEXT)].map((b) => Buffer.from([b]))],
    ['deflate as raw DEFLATE data', 'deflate', [deflateRawSync(TEXT)]],
    [
      'deflate as raw DEFLATE data, a byte at a time',
      'deflate',
      [...deflateRawSync(TEXT)].map((b) => Buffer.from([b])),
    ],
    ['deflate in zlib format followed by CR LF', 'deflate', [deflateSync(TEXT), Buffer.from('\r\n')]],
  ];
  for (const [what, coding, packets] of asProxiesSend) {
    it(`${what} is decoded as curl and browsers decode it`, async () => {
      const body = await get((res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding });
        streamPackets(res, packets);
      });
      expect(body).toEqual(BODY);
    });
  }

  it('a gzip member whose checksum does not match its data is corrupt, not decoded', async () => {
    const whole = gzipSync(TEXT);
    whole.writeUInt32LE((whole.readUInt32LE(whole.length - 8) ^ 1) >>> 0, whole.length - 8);
    const err = await get((res) => answer(res, 'gzip', whole));
    expect(err).toMatchObject({ name: 'ContentEncodingError', coding: 'gzip', problem: 'corrupt' });
    expect(isRetryable(err)).toBe(true);
  });

  it('a gzip member cut off in its trailer is corrupt, not decoded', async () => {
    const whole = gzipSync(TEXT);
    const err = await get((res) => answer(res, 'gzip', whole.subarray(0, whole.length - 3)));
    expect(err).toMatchObject({ name: 'ContentEncodingError', coding: 'gzip', problem: 'corrupt' });
  });

  it('raw DEFLATE data cut off is corrupt', async () => {
    const whole = deflateRawSync(Buffer.from(JSON.stringify({ data: 'y'.repeat(50_000) })));
    const err = await get((res) => answer(res, 'deflate', whole.subarray(0, whole.length - 20)));
    expect(err).toMatchObject({ name: 'ContentEncodingError', coding: 'deflate', problem: 'corrupt' });
  });

  for (const [coding, compress] of [
    ['gzip', (b: Buffer) => Buffer.concat([gzipSync(b, { level: 9 }), Buffer.from('\r\n')])],
    ['deflate', (b: Buffer) => deflateRawSync(b, { level: 9 })],
  ] as const) {
    const what = coding === 'gzip' ? 'gzip with trailing bytes' : 'raw DEFLATE';
    it(`a bomb in ${what} stops at the body cap`, async () => {
      const bomb = compress(Buffer.alloc(64 * MB, 'x'));
      const err = await get((res) => answer(res, coding, bomb), MB);
      expect(err).toMatchObject({ name: 'BodyTooLargeError', maxBytes: MB });
      expect((err as { readBytes: number }).readBytes).toBeLessThanOrEqual(MB + 64 * 1024);
    });
  }

  it('a gzip bomb (100 MB of text in ~100 KB) stops at the body cap, counted in decoded bytes', async () => {
    const bomb = await gzipBomb();
    expect(bomb.length).toBeLessThan(MB); // under the cap on the wire: only the decoded size can stop it
    const err = await get((res) => answer(res, 'gzip', bomb), MB);
    expect(err).toMatchObject({ name: 'BodyTooLargeError', maxBytes: MB });
    expect(isRetryable(err)).toBe(false);
    // Decoding stopped at the cap: at most one decoder chunk past it, never the 100 MB.
    expect((err as { readBytes: number }).readBytes).toBeGreaterThan(MB);
    expect((err as { readBytes: number }).readBytes).toBeLessThanOrEqual(MB + 64 * 1024);
  });
});

describe('the simulator compresses its answers when told to, and a collection reads them end to end', () => {
  let sim: Simulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  for (const contentEncoding of ['gzip', 'auto', 'deflate, br']) {
    it(`run --once against answers in "${contentEncoding}" collects every window (needs npm run build)`, async () => {
      sim = await startSimulator({ quotas: NO_QUOTAS, settings: { contentEncoding } });
      const dir = mkdtempSync(join(tmpdir(), 'content-encoding-'));
      const config = writeSimConfig(dir, sim, { jobs: { dvr: { enabled: false }, streamstat: { enabled: false } } });
      const { code, stdout, stderr } = await runCli(['run', '--once', '--config', config]).exited;
      expect(stderr).not.toMatch(/malformed|not JSON|Content-Encoding/);
      expect(stdout).toMatch(/once: ok: \d+ windows? collected/);
      expect(code).toBe(0);
      expect(readFileSync(join(dir, 'out.lp'), 'utf8')).toMatch(/^cdn_metrics_resource,/m);
    });
  }

  it(
    'an answer declared in a coding the collector cannot decode fails the run naming it, ' +
      'without retrying for minutes',
    async () => {
      sim = await startSimulator({ quotas: NO_QUOTAS, settings: { contentEncoding: 'zstd' } });
      const dir = mkdtempSync(join(tmpdir(), 'content-encoding-'));
      const config = writeSimConfig(dir, sim, {
        jobs: { dvr: { enabled: false }, streamstat: { enabled: false }, statistic: { enabled: false } },
      });
      const { code, stdout, stderr } = await runCli(['run', '--once', '--config', config]).exited;
      expect(`${stdout}${stderr}`).toMatch(/Content-Encoding \\?"zstd\\?" is not supported/);
      expect(code).not.toBe(0);
      // One call per job (aggregate, by resource): the limiter did not retry a coding that would come back the same.
      expect(sim.stats.apis.metrics.requests).toBe(2);
    },
  );
});
