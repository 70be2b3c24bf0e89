import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HttpClient } from '../../src/http/client.js';
import { isRetryable } from '../../src/failure.js';
import * as errors from '../../src/http/errors.js';
import { loopbackServer, type LoopbackServer } from '../helpers/loopback.js';

const MB = 1024 * 1024;
const HUGE = 100 * MB;
const CAP = 1 * MB;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

/** Streams `HUGE` bytes of a JSON string (chunked, no content-length) unless the client goes away; counts bytes sent.
 * */
async function stream(res: ServerResponse, sent: { bytes: number }, declare: boolean): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json', ...(declare ? { 'content-length': String(HUGE) } : {}) });
  res.write('"');
  while (sent.bytes < HUGE && !res.destroyed) {
    sent.bytes += CHUNK.length;
    if (!res.write(CHUNK)) await drainedOrClosed(res);
  }
  res.end('"');
}

function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const go = () => {
      res.off('drain', go).off('close', go);
      resolve();
    };
    res.on('drain', go).on('close', go);
  });
}

/**
 * A server that answers 100 MB must not make the collector hold 100 MB: the call fails with a typed, non-retryable
 * error once the cap is passed (or up front, when the declared length is over it).
 */
describe('response bodies are capped', () => {
  let server: LoopbackServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  for (const declare of [false, true]) {
    it(
      `a 100 MB body (${declare ? 'declared by content-length' : 'chunked'}) ` +
        `fails with BodyTooLargeError after reading at most the cap`,
      async () => {
        const sent = { bytes: 0 };
        server = await loopbackServer((_req, res) => stream(res, sent, declare));
        const http = new HttpClient({ baseUrl: server.url, token: 'tok-123456', maxBodyBytes: CAP });
        const err = await http
          .request({ api: 'statistic', method: 'GET', path: '/x', schema: z.unknown() })
          .catch((e: unknown) => e);
        await http.close();
        const BodyTooLargeError = (errors as Record<string, unknown>).BodyTooLargeError as new (...a: never[]) => Error;
        expect(BodyTooLargeError).toBeTypeOf('function');
        expect(err).toBeInstanceOf(BodyTooLargeError);
        const e = err as {
          maxBytes: number;
          readBytes: number;
          declaredBytes?: number;
          status: number;
          message: string;
        };
        expect(e).toMatchObject({ maxBytes: CAP, status: 200 });
        expect(isRetryable(err)).toBe(false);
        expect(e.message).toMatch(/api\.maxBodyBytes/);
        // Bytes read: never more than the cap plus one chunk.
        expect(e.readBytes).toBeLessThanOrEqual(CAP + CHUNK.length);
        if (declare) expect(e.declaredBytes).toBe(HUGE);
        // The connection was dropped, so the server stopped long before 100 MB (socket buffers hold a few MB at most).
        await new Promise((r) => setTimeout(r, 0));
        expect(sent.bytes).toBeLessThan(HUGE / 2);
      },
    );
  }

  it('per-API overrides apply: the same body passes on one API and fails on another', async () => {
    const body = JSON.stringify({ data: 'y'.repeat(200_000) });
    server = await loopbackServer(
      (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(body),
    );
    const http = new HttpClient({
      baseUrl: server.url,
      token: 'tok-123456',
      maxBodyBytes: 100_000,
      maxBodyBytesPerApi: { dvr: 1_000_000 },
    });
    const get = (api: 'dvr' | 'metrics') => http.request({ api, method: 'GET', path: '/x', schema: z.unknown() });
    await expect(get('dvr')).resolves.toMatchObject({ status: 200 });
    await expect(get('metrics')).rejects.toMatchObject({ name: 'BodyTooLargeError', maxBytes: 100_000 });
    await http.close();
  });
});
