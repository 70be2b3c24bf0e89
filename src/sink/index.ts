/** Builds the configured sink. */
import type { MeasurementSchema } from '../points.js';
import type { BatchingOptions } from './batching.js';
import { createFileSink, type FileSinkOptions } from './file.js';
import { createInfluxV1Sink, type InfluxV1Options } from './influx-v1.js';
import { createInfluxV2Sink, type InfluxV2Options } from './influx-v2.js';
import { createVictoriaSink, type VictoriaOptions } from './victoria.js';
import type { BackslashDialect, Precision, Sink, SinkObserver } from './types.js';

/** Settings every sink shares; all optional but the dead-letter path and the schema. */
export interface CommonSinkConfig {
  /** Lines per request (default 5,000). */
  batchSize?: number;
  /** Requests in flight at once (default 2; the file sink always 1). */
  maxInFlight?: number;
  /** Where permanently rejected lines go (the config's `output.deadLetterPath`, by default in `state.dir`). */
  deadLetterPath: string;
  /** Deadline of one request (default 30 s). */
  timeoutMs?: number;
  precision?: Precision;
  /** Counts written and rejected points (e.g. Telemetry). */
  telemetry?: SinkObserver;
  /** Each measurement's field types: the runtime passes the collector's, tests their own. */
  schema: ReadonlyMap<string, MeasurementSchema>;
  /** `verbatim` for InfluxDB 1.x/2.x (default), `escaped` for VictoriaMetrics and InfluxDB 3 (see types.ts). */
  backslashes?: BackslashDialect;
  /**
   * Whether the target replaces a point of the same series and time (InfluxDB: yes; VictoriaMetrics: no, it keeps
   * every sample). The sink writes the same either way; config rules and the jobs read it (src/config/rules.ts).
   */
  overwrites?: boolean;
}

/** What only one kind of sink takes: its own options minus the shared ones above. */
type Specific<O> = Omit<O, keyof BatchingOptions | keyof CommonSinkConfig | 'name'>;

export type SinkConfig = CommonSinkConfig &
  (
    | ({ type: 'influx-v2' } & Specific<InfluxV2Options>)
    | ({ type: 'influx-v1' } & Specific<InfluxV1Options>)
    | ({ type: 'victoriametrics' } & Specific<VictoriaOptions>)
    | ({ type: 'file' } & Specific<FileSinkOptions>)
  );

export function createSink(config: SinkConfig): Sink {
  const { telemetry, deadLetterPath, overwrites: _overwrites, ...rest } = config;
  const common = { ...rest, observer: telemetry, deadLetterPath };
  switch (common.type) {
    case 'influx-v2':
      return createInfluxV2Sink(common);
    case 'influx-v1':
      return createInfluxV1Sink(common);
    case 'victoriametrics':
      return createVictoriaSink(common);
    case 'file':
      return createFileSink(common);
  }
}

export type { Sink, WriteResult, Precision, BackslashDialect, SinkObserver } from './types.js';
export { SinkError, EncodeError, InvalidValueError, UnrepresentableError } from './errors.js';
export { createEncoder, encodePoint } from './line-protocol.js';
export { createInfluxV1Sink, createInfluxV2Sink, createFileSink };
