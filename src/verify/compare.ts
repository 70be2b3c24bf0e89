import type { Aggregate, FieldSchema, MeasurementSchema, Point } from '../points.js';
import { SCHEMA } from '../schema/schema.js';
import { floorTo } from '../time.js';
import type { ProviderRead } from './provider-read.js';
import type { StoredReader, StoredSum } from './readers/types.js';

/** One compared series: a summed field of one measurement, account and window. */
export interface SeriesCheck {
  measurement: string;
  field: string;
  account: string;
  /** Window start, epoch ms, and its length. */
  time: number;
  windowMs: number;
  expected: number;
  stored: number;
  /** stored − expected. */
  difference: number;
  /** difference ÷ expected (null when nothing was expected). */
  relative: number | null;
  /** The difference rounding alone can make (derived integer fields), see toleranceOf. */
  tolerance: number;
  drift: boolean;
  /** Keys of the jobs that collect this series: what a repair re-collects. */
  jobs: string[];
}

/**
 * The fields of a measurement compared for `aggregate`: 'sum' — those that add up across buckets and groups; 'last' —
 * those counted over their own period (unique users), compared bucket by bucket. Both from the schema's `aggregate`.
 */
export function comparedFields(schema: MeasurementSchema | undefined, aggregate: 'sum' | 'last' = 'sum'): string[] {
  if (!schema) return [];
  return Object.entries(schema.fields)
    .filter(([, f]) => f.aggregate === aggregate)
    .map(([name]) => name);
}

/** Fields that are the numerator of a ratio aggregate: integers rounded per point (cached_traffic = round(traffic ×
 * ratio)). */
function roundedFields(schema: MeasurementSchema): Set<string> {
  const isRatio = (a: Aggregate | undefined): a is { readonly ratio: readonly [string, string] } =>
    typeof a === 'object';
  return new Set(Object.values(schema.fields).flatMap((f) => (isRatio(f.aggregate) ? [f.aggregate.ratio[0]] : [])));
}

interface Expected {
  values: Record<string, number>;
  points: number;
}

interface MeasurementExpectation {
  schema: MeasurementSchema;
  fields: string[];
  /** The window its values are compared over (see ProviderRead.windowMs). */
  windowMs: number;
  series: Map<string, Expected>;
  jobs: Map<string, Set<string>>;
}

const seriesKey = (account: string, time: number) => `${account}\u0000${time}`;

/**
 * Sums the provider's points per measurement, account and window (the compared fields only, only `accounts`). A
 * 'last' field has one point per series and bucket: its sum over the account's series is a checksum of the bucket.
 */
export function expectations(
  reads: readonly ProviderRead[],
  accounts: readonly string[],
  schemas: ReadonlyMap<string, MeasurementSchema> = SCHEMA,
): Map<string, MeasurementExpectation> {
  const wanted = new Set(accounts);
  const out = new Map<string, MeasurementExpectation>();
  const add = (read: ProviderRead, p: Point) => {
    const account = p.tags.account;
    if (account === undefined || !wanted.has(account)) return;
    const schema = schemas.get(p.measurement);
    const fields = comparedFields(schema, read.aggregate);
    if (!schema || fields.length === 0) return;
    let m = out.get(p.measurement);
    if (!m)
      out.set(p.measurement, (m = { schema, fields, windowMs: read.windowMs, series: new Map(), jobs: new Map() }));
    const jobs = m.jobs.get(account) ?? new Set<string>();
    for (const job of read.jobs(account)) jobs.add(job);
    m.jobs.set(account, jobs);
    const key = seriesKey(account, floorTo(p.time, m.windowMs));
    const e = m.series.get(key) ?? { values: {}, points: 0 };
    for (const f of fields) if (typeof p.fields[f] === 'number') e.values[f] = (e.values[f] ?? 0) + p.fields[f];
    e.points++;
    m.series.set(key, e);
  };
  for (const read of reads) for (const p of read.points) add(read, p);
  return out;
}

/**
 * The difference rounding can make: half a unit per point on either side for a rounded field (the provider's own
 * total is rounded once per group, the stored one once per bucket); none for other integers (sums of integers below
 * 2^53 are exact in a double, as VictoriaMetrics and Flux hand them back); float noise for float fields.
 */
function toleranceOf(
  field: FieldSchema,
  rounded: boolean,
  expected: Expected | undefined,
  stored: StoredSum | undefined,
  value: number,
): number {
  if (rounded) return 0.5 * ((expected?.points ?? 0) + (stored?.points ?? 0));
  return field.type === 'integer' ? 0 : Math.abs(value) * 1e-12;
}

/** Reads the stored sums of every expected measurement and compares them series by series. */
export async function compareStored(
  expected: Map<string, MeasurementExpectation>,
  reader: StoredReader,
  range: { from: number; to: number; accounts: readonly string[] },
): Promise<SeriesCheck[]> {
  const checks: SeriesCheck[] = [];
  for (const [measurement, m] of expected) {
    const stored = new Map(
      (await reader.sums({ measurement, fields: m.fields, windowMs: m.windowMs, ...range })).map((s) => [
        seriesKey(s.account, s.time),
        s,
      ]),
    );
    const rounded = roundedFields(m.schema);
    for (const key of new Set([...m.series.keys(), ...stored.keys()])) {
      const [account, time] = key.split('\u0000') as [string, string];
      const e = m.series.get(key);
      const s = stored.get(key);
      for (const field of m.fields) {
        const exp = e?.values[field] ?? 0;
        const got = s?.values[field] ?? 0;
        const difference = got - exp;
        const tolerance = toleranceOf(m.schema.fields[field]!, rounded.has(field), e, s, exp);
        checks.push({
          measurement,
          field,
          account,
          time: Number(time),
          windowMs: m.windowMs,
          expected: exp,
          stored: got,
          difference,
          relative: exp === 0 ? null : difference / exp,
          tolerance,
          drift: Math.abs(difference) > tolerance,
          jobs: [...(m.jobs.get(account) ?? [])],
        });
      }
    }
  }
  return checks.sort(
    (a, b) =>
      a.measurement.localeCompare(b.measurement) ||
      a.account.localeCompare(b.account) ||
      a.time - b.time ||
      a.field.localeCompare(b.field),
  );
}
