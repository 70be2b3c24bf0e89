/**
 * InfluxDB v2 write API (`POST /api/v2/write`) through @influxdata/influxdb-client: InfluxDB 2.x/3.x, the 1.8+
 * compatibility endpoint (token `user:password`, bucket `db/rp`) and VictoriaMetrics.
 *
 * Why the client's transport and not its WriteApi: WriteApi buffers without limit, retries in the background and
 * drops lines after its retries, on a full retry buffer and on close(), so a resolved flush() does not prove the
 * lines landed. `InfluxDB.transport.request()` is the same HTTP path WriteApi uses underneath (auth header, gzip,
 * keep-alive, timeout) but gives one promise per request: resolved on 2xx, rejected with the status otherwise. That
 * is exactly the per-batch confirmation BatchingSink needs, with no second buffer, so it is also as fast.
 */
import { HttpError, InfluxDB, RequestTimedOutError } from '@influxdata/influxdb-client';
import { BatchingSink, type BatchingOptions, type LineTransport, type Rejection } from './batching.js';
import { DeadLetterFile } from './dead-letter.js';
import { outcomeOf, transportFailure } from './http-outcome.js';
import type { Precision } from './types.js';

export interface InfluxV2Options extends BatchingOptions {
  url: string;
  token: string;
  org: string;
  bucket: string;
  /** gzip bodies above 1 kB (default true). */
  gzip?: boolean;
  /** Deadline of one request (default 30 s). */
  timeoutMs?: number;
  deadLetterPath: string;
  /** Sink name in errors and dead letters (default `influx-v2`). */
  name?: string;
}

class InfluxV2Transport implements LineTransport {
  private readonly client: InfluxDB;
  private readonly path: string;
  private readonly what: string;
  private readonly timeoutMs: number;

  constructor(
    private readonly sinkName: string,
    private readonly options: InfluxV2Options,
    precision: Precision,
  ) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.client = new InfluxDB({ url: options.url, token: options.token, timeout: this.timeoutMs });
    const query = new URLSearchParams({ org: options.org, bucket: options.bucket, precision });
    this.path = `/api/v2/write?${query}`;
    this.what = `POST ${this.path}`;
  }

  async send(body: string): Promise<Rejection | undefined> {
    try {
      await this.client.transport.request(this.path, body, {
        method: 'POST',
        headers: { 'content-type': 'text/plain; charset=utf-8' },
        ...(this.options.gzip === false ? {} : { gzipThreshold: 1000 }),
      });
      return undefined;
    } catch (err) {
      if (err instanceof HttpError) return outcomeOf(this.sinkName, this.what, err.statusCode, err.body ?? err.message);
      throw transportFailure(this.sinkName, this.what, err, err instanceof RequestTimedOutError, this.timeoutMs);
    }
  }

  async close(): Promise<void> {
    // The client keeps no state of its own beyond Node's keep-alive agent.
  }
}

/** A sink writing through the v2 API. Backslashes default to `verbatim` (InfluxDB 2.x); use `escaped` for VictoriaMetrics/3.x. */
export function createInfluxV2Sink(options: InfluxV2Options): BatchingSink {
  const name = options.name ?? 'influx-v2';
  const precision = options.precision ?? 's';
  const transport = new InfluxV2Transport(name, options, precision);
  return new BatchingSink(name, transport, new DeadLetterFile(options.deadLetterPath), { ...options, precision });
}
