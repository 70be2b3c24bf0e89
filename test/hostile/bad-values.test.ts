/**
 * Values that are no measurement (a negative count, an integer beyond int64) and names that collide with the empty
 * placeholder, as an API could send them. The bad row goes to the dead-letter file with its reason, naming the field;
 * the rest of the span is written; an empty name and a name that is literally `(empty)` stay two series.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeadLetter } from '../../src/sink/dead-letter.js';
import { createSink } from '../../src/sink/index.js';
import { SCHEMA } from '../../src/schema/schema.js';
import { byResourceToPoints } from '../../src/sources/metrics/points.js';
import { metricsByResourceSchema } from '../../src/sources/metrics/schema.js';
import { timesGroupedToPoints } from '../../src/sources/statistic/points.js';
import { statisticTimesGroupedSchema } from '../../src/sources/statistic/schemas.js';

const METRICS_ENVELOPE = {
  start: '2024-01-01T00:00:00',
  end: '2024-01-01T00:10:00',
  account: 'acme',
  metrics: ['edge_status_200', 'edge_hit_ratio'],
};
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hostile-values-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeThroughFileSink(points: Parameters<ReturnType<typeof createSink>['write']>[0]) {
  const sink = createSink({
    type: 'file',
    path: join(dir, 'out.lp'),
    deadLetterPath: join(dir, 'dead.jsonl'),
    schema: SCHEMA,
  });
  const result = await sink.write(points);
  await sink.close();
  const lines = (await readFile(join(dir, 'out.lp'), 'utf8')).split('\n').filter(Boolean);
  const dead = (await readFile(join(dir, 'dead.jsonl'), 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as DeadLetter);
  return { result, lines, dead };
}

describe('values that are no measurement', () => {
  it(
    'a statistic row with a negative count or a count beyond int64 is dead-lettered naming the field; ' +
      'the rest is written',
    async () => {
      // The response itself is accepted: one bad row must not fail the whole span.
      const body = statisticTimesGroupedSchema.parse({
        start: '2024-01-01T00:00:00Z',
        end: '2024-01-01T00:10:00Z',
        granularity: 'PT5M',
        result: [
          {
            start: '2024-01-01T00:00:00Z',
            end: '2024-01-01T00:05:00Z',
            result: [
              { resource: 1, traffic: 100, hits: 3 },
              { resource: 2, traffic: 100, hits: -5 },
              { resource: 3, traffic: 2 ** 64, hits: 1 },
              { resource: 4, traffic: 2 ** 63 - 1024, hits: 1 },
            ],
          },
        ],
      });
      const { result, lines, dead } = await writeThroughFileSink(timesGroupedToPoints('resources', body));
      expect(result).toEqual({ written: 2, rejected: 2 });
      expect(lines.map((l) => /resource=(\d)/.exec(l)![1])).toEqual(['1', '4']);
      expect(lines[1]).toContain('traffic=9223372036854774784i');
      expect(dead.map((d) => d.reason)).toEqual([
        'cdn_traffic_by_resources.hits: -5 is negative, which this integer field cannot be',
        'cdn_traffic_by_resources.traffic: 18446744073709551616 does not fit an int64 field',
      ]);
      expect(dead.every((d) => d.status === 0 && d.lines.length === 1)).toBe(true);
    },
  );

  it('a negative metric (float or integer field) is dead-lettered, not written', async () => {
    const body = metricsByResourceSchema.parse({
      ...METRICS_ENVELOPE,
      data: [
        { resource: '1', resource_name: 'a', cname: 'a.example', edge_status_200: 7, edge_hit_ratio: 0.5 },
        { resource: '2', resource_name: 'b', cname: 'b.example', edge_status_200: 7, edge_hit_ratio: -0.5 },
      ],
    });
    const { result, lines, dead } = await writeThroughFileSink(byResourceToPoints(body, Date.UTC(2024, 0, 1)));
    expect(result).toEqual({ written: 1, rejected: 1 });
    expect(lines[0]).toContain('resource=1');
    expect(dead[0]!.reason).toBe(
      'cdn_metrics_resource.edge_hit_ratio: -0.5 is negative, which this float field cannot be',
    );
  });
});

describe('the empty placeholder does not merge series', () => {
  it('an empty name and a name that is literally "(empty)" or "((empty))" are each its own series', async () => {
    const body = metricsByResourceSchema.parse({
      ...METRICS_ENVELOPE,
      data: ['', '(empty)', '((empty))', '(empty'].map((name, i) => ({
        resource: String(i),
        resource_name: name,
        cname: 'c',
        edge_status_200: 1,
      })),
    });
    const { lines } = await writeThroughFileSink(byResourceToPoints(body, Date.UTC(2024, 0, 1)));
    expect(lines.map((l) => /resource_name=([^, ]*)/.exec(l)![1])).toEqual([
      '(empty)',
      '((empty))',
      '(((empty)))',
      '(empty',
    ]);
  });
});
