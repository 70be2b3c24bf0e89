import type { CollectorConfig } from '../../config/schema.js';
import type { StoredReader } from './types.js';

// Which reader, apart from the readers themselves: the daemon asks it at start, and loads a reader only for a check.

export type ReaderKind = StoredReader['kind'];

/**
 * The reader the sink implies (config `verify.reader: auto`): InfluxDB 1.x speaks InfluxQL; an /api/v2/write server
 * with escaped backslashes is VictoriaMetrics (InfluxDB 3 is read the same way it is not: say `flux` or
 * `victoriametrics`), else InfluxDB 2 and Flux. undefined for a sink that cannot be read back (a file).
 */
export function readerKindOf(config: Pick<CollectorConfig, 'sink' | 'verify'>): ReaderKind | undefined {
  if (config.verify.reader !== 'auto') return config.verify.reader;
  const sink = config.sink as { type: string; backslashes?: string };
  if (sink.type === 'influx-v1') return 'influxql';
  if (sink.type === 'victoriametrics') return 'victoriametrics';
  if (sink.type === 'influx-v2') return sink.backslashes === 'escaped' ? 'victoriametrics' : 'flux';
  return undefined;
}
