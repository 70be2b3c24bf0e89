/**
 * InfluxDB v2 write API (`POST /api/v2/write`): InfluxDB 2.x/3.x, the 1.8+ compatibility endpoint (token
 * `user:password`, bucket `db/rp`) and VictoriaMetrics.
 *
 * Not the official client's WriteApi: it buffers without limit, retries in the background and drops lines after its
 * retries, on a full retry buffer and on close(), so a resolved flush() does not prove the lines landed. Each batch
 * here is one request whose 2xx is the confirmation BatchingSink needs (see http-transport.ts for the HTTP side).
 */
import { BatchingSink, type BatchingOptions } from './batching.js';
import { DeadLetterFile } from './dead-letter.js';
import { HttpLineTransport, type HttpLineTransportOptions } from './http-transport.js';

export interface InfluxV2Options extends BatchingOptions {
  url: string;
  token: string;
  org: string;
  bucket: string;
  /**
   * gzip level 1–9 of request bodies, 0 for none (default 1: line protocol shrinks ~5× at level 1 and ~7× at 6, for
   * a third of the CPU; see docs/BENCHMARKS.md).
   */
  gzipLevel?: number;
  /** Bodies below this many bytes go uncompressed (default 4,096: see http-transport.ts). */
  gzipMinBytes?: number;
  /** Deadline of one request (default 30 s). */
  timeoutMs?: number;
  deadLetterPath: string;
  /** Sink name in errors and dead letters (default `influx-v2`). */
  name?: string;
}

/** A sink writing through the v2 API. Backslashes default to `verbatim` (InfluxDB 2.x); use `escaped` for
 * VictoriaMetrics/3.x. */
export function createInfluxV2Sink(options: InfluxV2Options): BatchingSink {
  const name = options.name ?? 'influx-v2';
  const precision = options.precision ?? 's';
  const transport = new HttpLineTransport(influxV2Transport({ ...options, precision }));
  return new BatchingSink(name, transport, new DeadLetterFile(options.deadLetterPath), { ...options, precision });
}

/** The write request of a v2 sink (also what the online check sends an empty body to). */
export function influxV2Transport(
  options: Omit<InfluxV2Options, 'deadLetterPath' | 'schema'>,
): HttpLineTransportOptions {
  const query = new URLSearchParams({ org: options.org, bucket: options.bucket, precision: options.precision ?? 's' });
  return {
    sinkName: options.name ?? 'influx-v2',
    baseUrl: options.url,
    path: `/api/v2/write?${query}`,
    headers: { 'content-type': 'text/plain; charset=utf-8', authorization: `Token ${options.token}` },
    gzipLevel: options.gzipLevel ?? 1,
    gzipMinBytes: options.gzipMinBytes,
    timeoutMs: options.timeoutMs,
  };
}
