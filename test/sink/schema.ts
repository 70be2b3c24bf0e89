import type { FieldType, MeasurementSchema } from '../../src/points.js';

/** Builds a schema map for tests, independent of the collector's SCHEMA (which other sources fill in). */
export function testSchema(defs: Record<string, Record<string, FieldType>>): ReadonlyMap<string, MeasurementSchema> {
  return new Map(
    Object.entries(defs).map(([name, fields]) => [
      name,
      {
        name,
        description: `test measurement ${name}`,
        source: 'test',
        tags: {},
        fields: Object.fromEntries(Object.entries(fields).map(([key, type]) => [key, { type, description: key }])),
      },
    ]),
  );
}

/** Tag values that break naive line-protocol writers. */
export const HOSTILE_TAG_VALUES = [
  'video cdn',
  'static,assets',
  'api=v2',
  'quoted "live"',
  'Видео 日本',
  'back\\slash',
  'a\\,b',
  'a\\ b',
  'double\\\\back',
  ' lead and trail ',
  '=,= ,',
];
