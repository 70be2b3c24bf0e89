import type { Point } from '../../points.js';

/** What `verify` asks of the database: the sums of some fields of one measurement, per account and window. */
export interface SumQuery {
  measurement: string;
  /** Additive fields (aggregate 'sum' in the schema); at least one. */
  fields: readonly string[];
  /** [from, to) in epoch ms, whole windows. */
  from: number;
  to: number;
  /** Window length (a day or an hour): sums are per epoch-aligned window, as the provider's P1D/PT1H buckets. */
  windowMs: number;
  /** Only these accounts (the `account` tag). */
  accounts: readonly string[];
}

/** The stored sums of one account and window; `points` = how many points carried the first field. */
export interface StoredSum {
  account: string;
  /** Window start, epoch ms. */
  time: number;
  values: Record<string, number>;
  points: number;
}

/** A database read back: InfluxDB 1.x (InfluxQL), InfluxDB 2 (Flux), VictoriaMetrics (export API). */
export interface StoredReader {
  /** Which server kind, for reports. */
  readonly kind: 'influxql' | 'flux' | 'victoriametrics';
  sums(q: SumQuery): Promise<StoredSum[]>;
  /**
   * For a database that keeps every sample (VictoriaMetrics), the part of `points` not stored yet: each point keeps
   * only the fields whose (series, time) is absent, so a repair fills gaps and never doubles a sum. Absent for a
   * database where writing the same series and time overwrites (InfluxDB): everything is rewritten.
   */
  unstored?(points: readonly Point[]): Promise<Point[]>;
  /** Waits (bounded, best effort) until the points a repair wrote are readable, so the re-check sees them. */
  settle(written: readonly Point[]): Promise<void>;
  close(): Promise<void>;
}

/** Adds `value` to the sum of `field` of one account and window (readers that aggregate client-side). */
export function addTo(
  into: Map<string, StoredSum>,
  account: string,
  time: number,
  field: string,
  value: number,
  isCountField: boolean,
): void {
  const key = `${account}\u0000${time}`;
  let row = into.get(key);
  if (!row) into.set(key, (row = { account, time, values: {}, points: 0 }));
  row.values[field] = (row.values[field] ?? 0) + value;
  if (isCountField) row.points++;
}
