/**
 * Holds a parsed InfluxQL query against the collector's schema: every measurement, tag and field it names must be one
 * the collector writes (with the given config, when a set of collected measurements is given), a subquery's outer
 * query may only use the subquery's columns and tags, the self-monitoring `kind` must be one the collector writes, with
 * the field that kind carries, and every function applied to a field must fit how the field aggregates (no sum of
 * unique users, no mean of a ratio).
 */
import type { Aggregate, MeasurementSchema } from '../../src/points.js';
import { METRICS } from '../../src/telemetry/metrics.js';
import { parseInfluxQL, type Query, type SelectQuery } from './influxql.js';

type Schema = ReadonlyMap<string, MeasurementSchema>;

/** Names a SELECT makes available to an outer query or to its checks. */
interface Scope {
  measurement?: MeasurementSchema;
  tags: Set<string>;
  names: Set<string>;
}

/** The measurements a config makes the collector write (a panel on another one would stay empty). */
export type Collected = ReadonlySet<string>;

/**
 * InfluxQL functions that mean something for each aggregate: additive values sum, peaks take the max, unique counts
 * and snapshots are read (last/max/min) but never summed or averaged, a ratio is never aggregated itself (its sums
 * are: `sum(num) / sum(den)`). Absent aggregate (booleans, self-monitoring): not checked.
 */
const FITTING: Record<'sum' | 'max' | 'last' | 'mean' | 'ratio', readonly string[]> = {
  sum: ['sum', 'top', 'bottom', 'max', 'min', 'last', 'count'],
  max: ['max', 'top', 'last', 'count'],
  last: ['last', 'first', 'max', 'min', 'top', 'bottom', 'count'],
  mean: ['mean', 'max', 'min', 'last', 'median', 'count'],
  ratio: ['count'],
};

function aggregateName(a: Aggregate): keyof typeof FITTING {
  return typeof a === 'string' ? a : 'ratio';
}

export function checkQuery(text: string, schema: Schema, collected?: Collected): string[] {
  let query: Query;
  try {
    query = parseInfluxQL(text);
  } catch (err) {
    return [`does not parse: ${(err as Error).message}`];
  }
  const problems: string[] = [];
  if (query.kind === 'show-tag-values') {
    const candidates = query.measurement !== undefined ? [schema.get(query.measurement)] : [...schema.values()];
    if (query.measurement !== undefined && !candidates[0]) problems.push(`unknown measurement "${query.measurement}"`);
    const known = candidates.filter((m): m is MeasurementSchema => m !== undefined);
    if (known.length > 0 && !known.some((m) => query.key in m.tags))
      problems.push(`"${query.key}" is not a tag of ${names(known)}`);
    for (const ref of query.whereRefs) {
      if (known.length > 0 && !known.some((m) => ref in m.tags))
        problems.push(`WHERE names "${ref}", not a tag of ${names(known)}`);
    }
    return problems;
  }
  checkSelect(query, schema, collected, problems);
  return problems;
}

function checkSelect(q: SelectQuery, schema: Schema, collected: Collected | undefined, problems: string[]): Scope {
  let scope: Scope;
  if ('measurement' in q.source) {
    const m = schema.get(q.source.measurement);
    if (!m) {
      problems.push(`unknown measurement "${q.source.measurement}"`);
      return { tags: new Set(q.groupBy), names: new Set([...q.columns, ...q.groupBy]) };
    }
    if (collected && !collected.has(m.name)) problems.push(`"${m.name}" is not written with this config`);
    const tags = new Set(Object.keys(m.tags));
    scope = { measurement: m, tags, names: new Set([...tags, ...Object.keys(m.fields)]) };
  } else {
    const sub = q.source.subquery;
    checkSelect(sub, schema, collected, problems);
    // A subquery hands on its columns, and as tags only what it grouped by.
    scope = { tags: new Set(sub.groupBy), names: new Set([...sub.columns, ...sub.groupBy]) };
  }
  const where = scope.measurement ? `of ${scope.measurement.name}` : 'of the subquery';
  for (const ref of q.selected)
    if (!scope.names.has(ref)) problems.push(`SELECT names "${ref}", not a field or tag ${where}`);
  for (const ref of q.whereRefs)
    if (!scope.names.has(ref)) problems.push(`WHERE names "${ref}", not a tag or field ${where}`);
  for (const tag of q.groupBy) if (!scope.tags.has(tag)) problems.push(`GROUP BY "${tag}", not a tag ${where}`);
  if (scope.measurement) {
    checkTagValues(q, scope.measurement, problems);
    checkAggregates(q, scope.measurement, problems);
  }
  return scope;
}

function checkAggregates(q: SelectQuery, m: MeasurementSchema, problems: string[]): void {
  for (const { fn, field } of q.calls) {
    const aggregate = m.fields[field]?.aggregate;
    if (aggregate === undefined) continue;
    const kind = aggregateName(aggregate);
    if (!FITTING[kind].includes(fn)) {
      const hint =
        typeof aggregate === 'string' ? '' : ` (use sum("${aggregate.ratio[0]}") / sum("${aggregate.ratio[1]}"))`;
      problems.push(`${fn}("${field}") does not fit ${m.name}.${field}, which aggregates as ${kind}${hint}`);
    }
  }
}

function checkTagValues(q: SelectQuery, m: MeasurementSchema, problems: string[]): void {
  for (const { key, value } of q.equals) {
    if (key === 'kind' && m.name === 'cdn_collector') {
      const def = (METRICS as Record<string, { field: string } | undefined>)[value];
      if (!def) problems.push(`kind '${value}' is not a self-monitoring metric (${Object.keys(METRICS).join(', ')})`);
      else {
        const wrong = q.selected.filter((f) => f in m.fields && f !== def.field);
        if (wrong.length > 0)
          problems.push(`kind '${value}' carries field "${def.field}", not ${wrong.map((f) => `"${f}"`).join(', ')}`);
      }
    }
  }
}

function names(ms: MeasurementSchema[]): string {
  return ms.length === 1 ? ms[0]!.name : 'any measurement';
}
