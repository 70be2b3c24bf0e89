/**
 * fast-check arbitraries for the APIs' response bodies: schema-shaped bodies with hostile strings, odd numbers and
 * unusual-but-accepted times, and mutations of them (a value replaced by any JSON, or removed) for the parsers.
 */
import fc from 'fast-check';
import { anyCodePoints } from '../helpers/any-text.js';
import { METRIC_NAMES } from '../../src/spec/metrics.js';
import { STATISTIC_GROUPINGS } from '../../src/spec/statistic.js';
import { STREAM_TYPES, STREAMSTAT_GROUPINGS } from '../../src/spec/streamstat.js';

/** Strings line protocol finds hard: separators, quotes, backslashes (also trailing), newlines, empty, non-ASCII. */
export const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  anyCodePoints({ maxLength: 8 }),
  fc.constantFrom('a b', 'x,y', 'k=v', 'back\\', '\\', 'q"uote', 'line\nbreak', '', 'Видео', '#', '\t'),
);

const count = fc.oneof(fc.nat(), fc.constantFrom(0, 2 ** 53 - 1, 2 ** 53 + 2, 1e21));
const number = fc.oneof(
  count,
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(-0, 0.5, -1, 1e-300),
);

/** Times as the schemas accept them: ISO with Z or offset, no zone, date only, and what Date.parse also reads. */
export const time = fc.oneof(
  fc
    .date({ min: new Date('1971-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.constantFrom(
    '2026-01-01T00:00:00',
    '2026-01-01T00:00:00+03:00',
    '2026-01-01',
    '2026-01-01T00:00:00.000Z',
    'Thu, 01 Jan 2026 00:00:00 GMT',
    '2026/01/01 00:00',
    '1',
  ),
);

const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
/** Drops undefined values, as JSON would. */
const json = <T extends object>(o: T): T => JSON.parse(JSON.stringify(o)) as T;

const metricValues = fc.dictionary(
  fc.oneof(fc.constantFrom(...METRIC_NAMES), fc.string({ maxLength: 6 })),
  fc.option(number, { nil: null }),
  {
    maxKeys: 6,
  },
);
const metricsEnvelope = {
  status: optional(fc.constant('OK')),
  start: time,
  end: time,
  account: text,
  metrics: fc.array(text, { maxLength: 3 }),
};

export const metricsAggregate = fc
  .record({ ...metricsEnvelope, data: fc.array(metricValues, { maxLength: 1 }) })
  .map(json);
export const metricsByResource = fc
  .record({
    ...metricsEnvelope,
    data: fc.array(
      fc
        .tuple(fc.record({ cname: text, resource: text, resource_name: text }), metricValues)
        .map(([k, v]) => ({ ...v, ...k })),
      {
        maxLength: 3,
      },
    ),
  })
  .map(json);

const key = fc.oneof(text, fc.integer());
const statisticValues = {
  traffic: optional(count),
  hits: optional(count),
  cache_ratio: optional(fc.double({ min: 0, max: 1, noNaN: true })),
  bandwidth: optional(count),
};
const statisticRow = fc.record({
  ...statisticValues,
  country: optional(key),
  country_name: optional(text),
  region_name: optional(text),
  code: optional(fc.integer()),
  resource: optional(key),
  resource_name: optional(text),
  host: optional(text),
  path: optional(text),
  account: optional(text),
  custom: optional(key),
});
const statisticEnvelope = {
  start: time,
  end: time,
  account: fc.option(text, { nil: null }),
  service: optional(text),
  host: optional(text),
};
export const statisticGrouping = fc.constantFrom(...STATISTIC_GROUPINGS);
export const statisticTotal = fc.record({ ...statisticEnvelope, ...statisticValues }).map(json);
export const statisticGrouped = fc
  .record({ ...statisticEnvelope, result: fc.array(statisticRow, { maxLength: 3 }) })
  .map(json);
export const statisticTimes = fc
  .record({
    ...statisticEnvelope,
    granularity: text,
    result: fc.array(fc.record({ start: time, end: time, ...statisticValues }), { maxLength: 3 }),
  })
  .map(json);
export const statisticTimesGrouped = fc
  .record({
    ...statisticEnvelope,
    granularity: text,
    result: fc.array(fc.record({ start: time, end: time, result: fc.array(statisticRow, { maxLength: 3 }) }), {
      maxLength: 2,
    }),
  })
  .map(json);

const viewValues = { views: optional(count), users: optional(count), views_max: optional(count) };
/** Every key of every grouping, so an element fits any grouping's required keys. */
const viewElement = fc.record({
  stream: text,
  account: text,
  stream_type: fc.constantFrom(...STREAM_TYPES),
  browser: text,
  platform: text,
  ...viewValues,
});
const viewEnvelope = {
  start: time,
  end: time,
  fields: fc.subarray(['views', 'users', 'views_max']),
  account: fc.option(text, { nil: null }),
};
export const streamstatGrouping = fc.constantFrom(...STREAMSTAT_GROUPINGS);
export const streamstatTotal = fc.record({ ...viewEnvelope, ...viewValues }).map(json);
export const streamstatGrouped = fc
  .record({ ...viewEnvelope, result: fc.array(viewElement, { maxLength: 3 }) })
  .map(json);
export const streamstatTimes = fc
  .record({
    ...viewEnvelope,
    granularity: text,
    result: fc.array(fc.record({ start: time, end: time, ...viewValues }), { maxLength: 3 }),
  })
  .map(json);
export const streamstatTimesGrouped = fc
  .record({
    ...viewEnvelope,
    granularity: text,
    result: fc.array(fc.record({ start: time, end: time, result: fc.array(viewElement, { maxLength: 2 }) }), {
      maxLength: 2,
    }),
  })
  .map(json);

const seconds = fc.oneof(fc.integer({ min: 0, max: 4_102_444_800 }), fc.integer());
export const dvrGet = fc
  .record({
    status: fc.constant('Completed'),
    stream_name: text,
    data: fc.array(
      fc.record({
        stream_name: text,
        host: text,
        is_alive: fc.boolean(),
        dvr: fc.record({
          enabled: fc.boolean(),
          window: fc.oneof(count, fc.double({ min: 0, max: 1e9, noNaN: true })),
          duration: fc.oneof(count, fc.double({ min: 0, max: 1e9, noNaN: true })),
          from: fc.option(seconds, { nil: undefined }),
          ranges: fc.array(
            fc.record({ from: seconds, duration: fc.oneof(fc.nat(), fc.double({ min: 0, max: 1e9, noNaN: true })) }),
            {
              maxLength: 3,
            },
          ),
        }),
      }),
      { maxLength: 3 },
    ),
  })
  .map(json);

/** Every path (keys and indexes) inside a JSON value, the root included. */
function paths(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  const out = [at];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...at, i])));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...at, k]));
  return out;
}

/** `valid` with the value at one path replaced by any JSON value, or removed. */
export function mutated(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc
    .tuple(valid, fc.nat(), fc.jsonValue({ maxDepth: 2 }), fc.boolean())
    .map(([body, pick, replacement, remove]) => {
      const all = paths(body);
      const path = all[pick % all.length]!;
      if (path.length === 0) return replacement;
      const copy = structuredClone(body) as Record<string | number, unknown>;
      let parent = copy;
      for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
      const last = path.at(-1)!;
      if (remove && Array.isArray(parent)) parent.splice(Number(last), 1);
      else if (remove) delete parent[last];
      else parent[last] = replacement;
      return copy;
    });
}
