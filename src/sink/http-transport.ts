/**
 * One HTTP write request per batch, on undici, for every line-protocol server (InfluxDB 1.x `/write`, the v2
 * `/api/v2/write` of InfluxDB 2.x/3.x and VictoriaMetrics). The sinks differ only in URL and auth header.
 *
 * Why not the official client's transport for v2: it gzips at zlib's default level through a 16 kB output buffer, so
 * one batch needs many thread-pool round trips, each waiting for a busy event loop; with confirmed writes that
 * latency is on the critical path (see docs/BENCHMARKS.md). Here a body is compressed in one trip at a fast level.
 */
import { gzip as gzipCallback, type ZlibOptions } from 'node:zlib';
import { Agent, request } from '../http/undici.js';
import type { LineTransport, Rejection } from './batching.js';
import { outcomeOf, transportFailure } from './http-outcome.js';
import { DEFAULT_GZIP_MIN_BYTES } from './types.js';

export interface HttpLineTransportOptions {
  /** Sink name in errors. */
  sinkName: string;
  /** The server's base URL (a path prefix, e.g. a vminsert tenant, is kept). */
  baseUrl: string;
  /** The write path with its query, e.g. `/write?db=x`; errors name the request by it (it holds no credentials). */
  path: string;
  /** Auth and content headers; never copied into errors. */
  headers: Record<string, string>;
  /** gzip level 1–9 for request bodies; 0 sends them as they are. */
  gzipLevel: number;
  /** Bodies smaller than this many bytes go uncompressed (default DEFAULT_GZIP_MIN_BYTES). */
  gzipMinBytes?: number;
  /** Deadline of one request (default 30 s). */
  timeoutMs?: number;
}

export class HttpLineTransport implements LineTransport {
  private readonly agent = new Agent({ keepAliveTimeout: 10_000, connections: 8 });
  private readonly url: string;
  private readonly what: string;
  private readonly timeoutMs: number;
  private readonly gzipHeaders: Record<string, string>;
  private readonly gzipMinBytes: number;

  constructor(private readonly options: HttpLineTransportOptions) {
    const level = options.gzipLevel;
    if (!Number.isInteger(level) || level < 0 || level > 9)
      throw new RangeError(`gzipLevel must be an integer 0–9, got ${level}`);
    this.url = `${options.baseUrl.replace(/\/+$/, '')}${options.path}`;
    this.what = `POST ${options.path}`;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.gzipHeaders = { ...options.headers, 'content-encoding': 'gzip' };
    this.gzipMinBytes = options.gzipMinBytes ?? DEFAULT_GZIP_MIN_BYTES;
    if (!(this.gzipMinBytes >= 0)) throw new RangeError(`gzipMinBytes must be >= 0, got ${this.gzipMinBytes}`);
  }

  async send(body: Buffer | string): Promise<Rejection | undefined> {
    const { timeoutMs, what } = this;
    const { sinkName } = this.options;
    const deadline = AbortSignal.timeout(timeoutMs);
    let status: number;
    let text: string;
    try {
      const compress = this.options.gzipLevel > 0 && body.length >= this.gzipMinBytes;
      const res = await request(this.url, {
        method: 'POST',
        body: compress ? await gzip(body, this.options.gzipLevel) : body,
        headers: compress ? this.gzipHeaders : this.options.headers,
        dispatcher: this.agent,
        signal: deadline,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      const timedOut = deadline.aborted || /TIMEOUT/.test(String((err as { code?: unknown }).code));
      throw transportFailure(sinkName, what, err, timedOut, timeoutMs);
    }
    return outcomeOf(sinkName, what, status, text);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/**
 * Compresses on the thread pool in one pass: the output buffer is sized for the whole result (line protocol shrinks
 * well below half), where zlib's 16 kB default would come back to the event loop once per 16 kB of output.
 */
function gzip(body: Buffer | string, level: number): Promise<Buffer> {
  const options: ZlibOptions = { level, chunkSize: Math.max(16 * 1024, body.length >> 1) };
  return new Promise((resolve, reject) =>
    gzipCallback(body, options, (err, out) => (err ? reject(err) : resolve(out))),
  );
}
