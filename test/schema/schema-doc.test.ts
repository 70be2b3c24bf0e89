import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { schemaCommand } from '../../src/cli/schema/schema.js';
import type { MeasurementSchema } from '../../src/points.js';
import { SCHEMA } from '../../src/schema/schema.js';
import { REGENERATE_COMMAND, renderSchemaDocument, renderSchemaMarkdown } from '../../src/schema/schema-doc.js';
import { dvrMeasurements } from '../../src/sources/dvr/measurements.js';
import { metricsMeasurements } from '../../src/sources/metrics/measurements.js';
import { statisticMeasurements } from '../../src/sources/statistic/measurements.js';
import { streamstatMeasurements } from '../../src/sources/streamstat/measurements.js';
import { collectorMeasurements } from '../../src/telemetry/measurements.js';

// The arrays SCHEMA is built from: a Map would silently keep only one of two measurements with the same name.
const ALL: MeasurementSchema[] = [
  ...metricsMeasurements,
  ...statisticMeasurements,
  ...streamstatMeasurements,
  ...dvrMeasurements,
  ...collectorMeasurements,
];

describe('docs/schema.md', () => {
  it('is the generated text', async () => {
    const onDisk = await readFile('docs/schema.md', 'utf8');
    expect(onDisk, `docs/schema.md is out of date; regenerate it: ${REGENERATE_COMMAND}`).toBe(
      renderSchemaDocument(SCHEMA),
    );
  });
});

describe('SCHEMA', () => {
  it('has unique measurement names', () => {
    const names = ALL.map((m) => m.name);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
    expect(SCHEMA.size).toBe(ALL.length);
  });

  it('gives every measurement at least one field, and no key is both tag and field', () => {
    for (const m of ALL) {
      expect(Object.keys(m.fields).length, m.name).toBeGreaterThan(0);
      expect(
        Object.keys(m.tags).filter((tag) => tag in m.fields),
        m.name,
      ).toEqual([]);
      expect(m.source, m.name).not.toBe('');
    }
  });
});

describe('renderSchemaMarkdown', () => {
  const sample: MeasurementSchema = {
    name: 'm',
    description: 'line one\nline two',
    source: 'GET /x/',
    tags: { host: 'a | b <c>' },
    fields: {
      n: { type: 'integer', description: 'count', unit: 'requests', aggregate: 'sum' },
      hit: { type: 'integer', description: 'hits', aggregate: 'sum' },
      ratio: { type: 'float', description: 'share', aggregate: { ratio: ['hit', 'n'] } },
      users: { type: 'integer', description: 'uniques', aggregate: 'last' },
      ok: { type: 'boolean', description: 'flag' },
    },
    query: 'SELECT sum("n") FROM "m" GROUP BY time(1h)',
  };
  it('renders one row per tag and field with type, unit and aggregate, escaping pipes and line breaks', () => {
    const text = renderSchemaMarkdown([sample]);
    expect(text).toContain('## `m`\n\nline one line two\n\nSource API: GET /x/\n');
    expect(text).toContain('| tag | `host` | string | — | — | a \\| b &lt;c> |');
    expect(text).toContain('| field | `n` | integer | requests | sum | count |');
    expect(text).toContain('| field | `ratio` | float | — | sum(`hit`) / sum(`n`) | share |');
    expect(text).toContain('| field | `users` | integer | — | last (never sum) | uniques |');
    expect(text).toContain('| field | `ok` | boolean | — | — | flag |');
    expect(text).toContain('```sql\nSELECT sum("n") FROM "m" GROUP BY time(1h)\n```');
  });
});

describe('cdn-collector schema', () => {
  it('--write writes the document; --json prints every measurement', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'schema-'));
    try {
      await schemaCommand().parseAsync(['--write', join(dir, 'schema.md')], { from: 'user' });
      expect(await readFile(join(dir, 'schema.md'), 'utf8')).toBe(renderSchemaDocument(SCHEMA));
      const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
      try {
        await schemaCommand().parseAsync(['--json'], { from: 'user' });
        const printed = JSON.parse(String(out.mock.calls[0]?.[0])) as MeasurementSchema[];
        expect(printed.map((m) => m.name)).toEqual([...SCHEMA.keys()]);
      } finally {
        out.mockRestore();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
