/** InfluxDB 1.x `POST /write?db=&rp=&precision=` on undici, with basic auth and optional gzip. */
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { Agent, request } from 'undici';
import { BatchingSink, type BatchingOptions, type LineTransport, type Rejection } from './batching.js';
import { DeadLetterFile } from './dead-letter.js';
import { outcomeOf, transportFailure } from './http-outcome.js';
import type { Precision } from './types.js';

const gzip = promisify(gzipCallback);

export interface InfluxV1Options extends BatchingOptions {
  url: string;
  database: string;
  retentionPolicy?: string;
  username?: string;
  /** Sent as basic auth (a header), never in the URL, so it can't leak into error messages. */
  password?: string;
  /** Compress request bodies (default false: 1.x servers on a LAN gain little). */
  gzip?: boolean;
  /** Deadline of one request (default 30 s). */
  timeoutMs?: number;
  deadLetterPath: string;
  /** Sink name in errors and dead letters (default `influx-v1`). */
  name?: string;
}

class InfluxV1Transport implements LineTransport {
  private readonly url: string;
  private readonly what: string;
  private readonly headers: Record<string, string>;
  private readonly agent = new Agent({ keepAliveTimeout: 10_000, connections: 8 });

  constructor(
    private readonly sinkName: string,
    private readonly options: InfluxV1Options,
    precision: Precision,
  ) {
    const query = new URLSearchParams({ db: options.database, precision });
    if (options.retentionPolicy) query.set('rp', options.retentionPolicy);
    this.url = `${options.url.replace(/\/+$/, '')}/write?${query}`;
    this.what = `POST /write?${query}`;
    this.headers = { 'content-type': 'text/plain; charset=utf-8' };
    if (options.username !== undefined || options.password !== undefined) {
      const credentials = Buffer.from(`${options.username ?? ''}:${options.password ?? ''}`).toString('base64');
      this.headers.authorization = `Basic ${credentials}`;
    }
    if (options.gzip) this.headers['content-encoding'] = 'gzip';
  }

  async send(body: string): Promise<Rejection | undefined> {
    const timeoutMs = this.options.timeoutMs ?? 30_000;
    const deadline = AbortSignal.timeout(timeoutMs);
    let status: number;
    let text: string;
    try {
      const res = await request(this.url, {
        method: 'POST',
        body: this.options.gzip ? await gzip(body) : body,
        headers: this.headers,
        dispatcher: this.agent,
        signal: deadline,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      const timedOut = deadline.aborted || /TIMEOUT/.test(String((err as { code?: unknown }).code));
      throw transportFailure(this.sinkName, this.what, err, timedOut, timeoutMs);
    }
    return outcomeOf(this.sinkName, this.what, status, text);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** A sink writing to InfluxDB 1.x (backslashes verbatim, as its Go parser reads them). */
export function createInfluxV1Sink(options: InfluxV1Options): BatchingSink {
  const name = options.name ?? 'influx-v1';
  const precision = options.precision ?? 's';
  const transport = new InfluxV1Transport(name, options, precision);
  return new BatchingSink(name, transport, new DeadLetterFile(options.deadLetterPath), {
    backslashes: 'verbatim',
    ...options,
    precision,
  });
}
