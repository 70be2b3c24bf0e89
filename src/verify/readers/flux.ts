import { createRequire } from 'node:module';
import type * as InfluxClient from '@influxdata/influxdb-client';
import { VerifyReadError } from './errors.js';
import { addTo, type StoredReader, type StoredSum, type SumQuery } from './types.js';

export interface FluxTarget {
  url: string;
  token: string;
  org: string;
  bucket: string;
  timeoutMs?: number;
}

/** A Flux string literal (JSON's escaping is Flux's for `"` and `\`; `${` is escaped so it never interpolates). */
export function fluxString(value: string): string {
  return JSON.stringify(value).replace(/\$\{/g, '\\${');
}

const POINTS_FIELD = '__points';

/**
 * The Flux of one SumQuery: per account, field and epoch-aligned window the sum (aggregateWindow stamps the window
 * start, so rows line up with the provider's buckets), and per account and window the count of the first field
 * under the pseudo-field `__points` (the rounding bound of derived fields).
 */
export function buildFlux(q: SumQuery, bucket: string): string {
  const fields = q.fields.map((f) => `r._field == ${fluxString(f)}`).join(' or ');
  const accounts = q.accounts.map((a) => `r.account == ${fluxString(a)}`).join(' or ');
  const every = `${q.windowMs}ms`;
  return [
    `data = from(bucket: ${fluxString(bucket)})`,
    `  |> range(start: time(v: ${fluxString(new Date(q.from).toISOString())}), stop: time(v: ` +
      `${fluxString(new Date(q.to).toISOString())}))`,
    `  |> filter(fn: (r) => r._measurement == ${fluxString(q.measurement)} and (${fields}) and (${accounts}))`,
    `sums = data`,
    `  |> group(columns: ["account", "_field"])`,
    `  |> aggregateWindow(every: ${every}, fn: sum, timeSrc: "_start", createEmpty: false)`,
    `  |> toFloat()`,
    `counts = data`,
    `  |> filter(fn: (r) => r._field == ${fluxString(q.fields[0]!)})`,
    `  |> group(columns: ["account"])`,
    `  |> aggregateWindow(every: ${every}, fn: count, timeSrc: "_start", createEmpty: false)`,
    `  |> toFloat()`,
    `  |> set(key: "_field", value: ${fluxString(POINTS_FIELD)})`,
    `union(tables: [sums, counts])`,
    `  |> keep(columns: ["_time", "_value", "_field", "account"])`,
  ].join('\n');
}

/** InfluxDB 2 through the official client's QueryApi (Flux): what it is good at, see docs/design.md. */
export function fluxReader(target: FluxTarget): StoredReader {
  // Loaded when a Flux reader is built: the daemon loads the verify job at start, and most sinks are read otherwise.
  const { InfluxDB } = createRequire(import.meta.url)('@influxdata/influxdb-client') as typeof InfluxClient;
  const api = new InfluxDB({ url: target.url, token: target.token, timeout: target.timeoutMs ?? 30_000 }).getQueryApi(
    target.org,
  );
  return {
    kind: 'flux',
    async sums(q) {
      if (q.accounts.length === 0) return [];
      let rows: Array<{ _time: string; _value: number; _field: string; account: string }>;
      try {
        rows = await api.collectRows(buildFlux(q, target.bucket));
      } catch (err) {
        throw new VerifyReadError(`InfluxDB 2 Flux query of ${q.measurement} failed: ${(err as Error).message}`);
      }
      const into = new Map<string, StoredSum>();
      for (const row of rows) {
        const time = Date.parse(row._time);
        if (row._field === POINTS_FIELD) {
          addTo(into, row.account, time, q.fields[0]!, 0, false);
          into.get(`${row.account}\u0000${time}`)!.points = Number(row._value);
        } else {
          addTo(into, row.account, time, row._field, Number(row._value), false);
        }
      }
      return [...into.values()];
    },
    // InfluxDB answers a query with every point whose write it has confirmed.
    async settle() {},
    async close() {},
  };
}
