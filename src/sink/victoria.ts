/**
 * VictoriaMetrics (single node, or vminsert of a cluster) through its InfluxDB line-protocol endpoint
 * `/api/v2/write`: no org, bucket or token (a bearer token only for a vmauth or proxy in front of it). It reads
 * backslashes escaped (see types.ts) and keeps every sample of a series and time (config: output.overwrites false).
 */
import { BatchingSink, type BatchingOptions } from './batching.js';
import { DeadLetterFile } from './dead-letter.js';
import { HttpLineTransport, type HttpLineTransportOptions } from './http-transport.js';

export interface VictoriaOptions extends BatchingOptions {
  url: string;
  token?: string | undefined;
  /** gzip level 1–9 of request bodies, 0 for none (default 1). */
  gzipLevel?: number;
  gzipMinBytes?: number;
  timeoutMs?: number;
  deadLetterPath: string;
  /** Sink name in errors and dead letters (default `victoriametrics`). */
  name?: string;
}

export function createVictoriaSink(options: VictoriaOptions): BatchingSink {
  const name = options.name ?? 'victoriametrics';
  const precision = options.precision ?? 's';
  const transport = new HttpLineTransport(victoriaTransport({ ...options, precision }));
  const batching = { ...options, precision, backslashes: 'escaped' as const };
  return new BatchingSink(name, transport, new DeadLetterFile(options.deadLetterPath), batching);
}

/** The write request (also what the online check sends an empty body to). */
export function victoriaTransport(
  options: Omit<VictoriaOptions, 'deadLetterPath' | 'schema'>,
): HttpLineTransportOptions {
  const query = new URLSearchParams({ precision: options.precision ?? 's' });
  return {
    sinkName: options.name ?? 'victoriametrics',
    baseUrl: options.url,
    path: `/api/v2/write?${query}`,
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    },
    gzipLevel: options.gzipLevel ?? 1,
    gzipMinBytes: options.gzipMinBytes,
    timeoutMs: options.timeoutMs,
  };
}
