import type { CollectorConfig } from '../../config/schema.js';
import { VerifyReadError } from './errors.js';
import { readerKindOf } from './kind.js';
import { fluxReader } from './flux.js';
import { influxQlReader } from './influxql.js';
import type { StoredReader } from './types.js';
import { victoriaReader } from './victoria.js';

/** Builds the reader of the configured database; a sink without one (file) is a VerifyReadError naming it. */
export function readerFor(config: Pick<CollectorConfig, 'sink' | 'verify' | 'api'>): StoredReader {
  const kind = readerKindOf(config);
  const sink = config.sink as Record<string, string | undefined> & { type: string };
  const url = config.verify.url ?? sink.url;
  if (kind === undefined || url === undefined) {
    throw new VerifyReadError(
      `sink.type ${sink.type}: verify reads the database back and needs an InfluxDB or VictoriaMetrics sink`,
    );
  }
  const timeoutMs = config.api.timeout;
  switch (kind) {
    case 'influxql':
      return influxQlReader({
        url,
        database: need(sink, 'database'),
        retentionPolicy: sink.retentionPolicy,
        username: sink.username,
        password: sink.password,
        timeoutMs,
      });
    case 'flux':
      return fluxReader({
        url,
        token: need(sink, 'token'),
        org: need(sink, 'org'),
        bucket: need(sink, 'bucket'),
        timeoutMs,
      });
    case 'victoriametrics':
      return victoriaReader({ url, token: sink.token, timeoutMs });
  }
}

function need(sink: Record<string, string | undefined> & { type: string }, key: string): string {
  const value = sink[key];
  if (value === undefined) throw new VerifyReadError(`verify.reader needs sink.${key} (sink.type ${sink.type})`);
  return value;
}
