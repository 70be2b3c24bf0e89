/** InfluxDB 1.x `POST /write?db=&rp=&precision=`, with basic auth and optional gzip. */
import { BatchingSink, type BatchingOptions } from './batching.js';
import { DeadLetterFile } from './dead-letter.js';
import { HttpLineTransport, type HttpLineTransportOptions } from './http-transport.js';

export interface InfluxV1Options extends BatchingOptions {
  url: string;
  database: string;
  retentionPolicy?: string;
  username?: string;
  /** Sent as basic auth (a header), never in the URL, so it can't leak into error messages. */
  password?: string;
  /** gzip level 1–9 of request bodies, 0 for none (default 0: 1.x servers on a LAN gain little). */
  gzipLevel?: number;
  /** Bodies below this many bytes go uncompressed (default 4,096: see http-transport.ts). */
  gzipMinBytes?: number;
  /** Deadline of one request (default 30 s). */
  timeoutMs?: number;
  deadLetterPath: string;
  /** Sink name in errors and dead letters (default `influx-v1`). */
  name?: string;
}

/**
 * Requests in flight unless configured. 4 gained nothing measurable over 2 on the shared 2-core bench machine (sink
 * ÷ sink, median 0.96 of 5 alternated pairs, load ~7), and a loaded 1.6.7 answered 500 timeout to 4 batches of 5,000
 * at once: 2 stays until a quieter machine shows a gain .
 */
export const DEFAULT_MAX_IN_FLIGHT_V1 = 2;

/** A sink writing to InfluxDB 1.x (backslashes verbatim, as its Go parser reads them). */
export function createInfluxV1Sink(options: InfluxV1Options): BatchingSink {
  const name = options.name ?? 'influx-v1';
  const precision = options.precision ?? 's';
  const transport = new HttpLineTransport(influxV1Transport({ ...options, precision }));
  return new BatchingSink(name, transport, new DeadLetterFile(options.deadLetterPath), {
    backslashes: 'verbatim',
    ...options,
    precision,
    maxInFlight: options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT_V1,
  });
}

/** The write request of a v1 sink (also what the online check sends an empty body to). */
export function influxV1Transport(
  options: Omit<InfluxV1Options, 'deadLetterPath' | 'schema'>,
): HttpLineTransportOptions {
  const query = new URLSearchParams({ db: options.database, precision: options.precision ?? 's' });
  if (options.retentionPolicy) query.set('rp', options.retentionPolicy);
  const headers: Record<string, string> = { 'content-type': 'text/plain; charset=utf-8' };
  if (options.username !== undefined || options.password !== undefined) {
    const credentials = Buffer.from(`${options.username ?? ''}:${options.password ?? ''}`).toString('base64');
    headers.authorization = `Basic ${credentials}`;
  }
  return {
    sinkName: options.name ?? 'influx-v1',
    baseUrl: options.url,
    path: `/write?${query}`,
    headers,
    gzipLevel: options.gzipLevel ?? 0,
    gzipMinBytes: options.gzipMinBytes,
    timeoutMs: options.timeoutMs,
  };
}
