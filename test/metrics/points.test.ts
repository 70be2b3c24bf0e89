import { describe, expect, it } from 'vitest';
import { encodePoint } from '../../src/sink/line-protocol.js';
import { metricsMeasurements } from '../../src/sources/metrics/measurements.js';
import { aggregateToPoints, byResourceToPoints } from '../../src/sources/metrics/points.js';
import { metricsByResourceSchema, type MetricsAggregateBody } from '../../src/sources/metrics/schema.js';
import { metricFieldName } from '../../src/sources/metrics/fields.js';
import { METRIC_NAMES } from '../../src/spec/metrics.js';
import { END, metricsClient, START, START_MS } from './helpers.js';
import { useSimInProcess } from '../helpers/in-process.js';

const ctx = useSimInProcess();
const SCHEMA = new Map(metricsMeasurements.map((m) => [m.name, m]));
const envelope = { status: 'OK', start: START, end: END, account: 'acme', metrics: [] };

describe('metrics points', () => {
  it(
    'maps an aggregate to one cdn_metrics point at the window start, ' +
      'dropping nulls and unknown names; bandwidth is stored as _avg',
    () => {
      const body: MetricsAggregateBody = {
        ...envelope,
        data: [{ edge_requests_total: 120, edge_hit_ratio: null, edge_bandwidth: 1.5, edge_teleports: 3 }],
      };
      expect(aggregateToPoints(body, START_MS)).toEqual([
        {
          measurement: 'cdn_metrics',
          tags: { account: 'acme' },
          fields: { edge_requests_total: 120, edge_bandwidth_avg: 1.5 },
          time: START_MS,
        },
      ]);
    },
  );

  it('writes no point for an empty data array or an element without any value', () => {
    expect(aggregateToPoints({ ...envelope, data: [] }, START_MS)).toEqual([]);
    expect(aggregateToPoints({ ...envelope, data: [{ edge_hit_ratio: null }] }, START_MS)).toEqual([]);
  });

  it(
    'maps each resource to a cdn_metrics_resource point; ' +
      'tag values stay exact, empty ones too (the sink writes the placeholder)',
    () => {
      // Built through the schema, as the client does: the element type mixes string tags with numeric metrics.
      const body = metricsByResourceSchema.parse({
        ...envelope,
        account: '',
        data: [
          { cname: '', resource: '101', resource_name: '', edge_status_200: 7 },
          {
            cname: 'r.example',
            resource: '102',
            resource_name: 'static,assets "q" \\',
            edge_status_200: 8,
            edge_hit_bytes: null,
          },
        ],
      });
      const points = byResourceToPoints(body, START_MS);
      expect(points.map((p) => p.tags)).toEqual([
        { account: '', resource: '101', resource_name: '', cname: '' },
        { account: '', resource: '102', resource_name: 'static,assets "q" \\', cname: 'r.example' },
      ]);
      expect(points.map((p) => p.fields)).toEqual([{ edge_status_200: 7 }, { edge_status_200: 8 }]);
      expect(points.every((p) => p.measurement === 'cdn_metrics_resource' && p.time === START_MS)).toBe(true);
    },
  );

  it('gives both measurements the tags and one field per metric name with its fixed type', () => {
    const [total, perResource] = metricsMeasurements;
    expect(Object.keys(total!.tags)).toEqual(['account']);
    expect(Object.keys(perResource!.tags).sort()).toEqual(['account', 'cname', 'resource', 'resource_name']);
    for (const m of metricsMeasurements) {
      expect(Object.keys(m.fields), m.name).toEqual(METRIC_NAMES.map(metricFieldName));
      expect(Object.keys(m.fields).filter((f) => f.includes('bandwidth'))).toEqual([
        'origin_bandwidth_avg',
        'edge_bandwidth_avg',
      ]);
      expect(Object.keys(m.fields)).toHaveLength(66);
      expect(m.fields.edge_status_2xx!.type).toBe('integer');
      expect(m.fields.edge_hit_bytes!.type).toBe('integer');
      expect(m.fields.origin_bandwidth_avg!.type).toBe('float');
      expect(m.fields.edge_hit_ratio!.type).toBe('float');
      expect(m.fields.origin_request_time_3m_4m!.type).toBe('float');
    }
  });

  it('says how each field aggregates: counts and bytes sum, averages, unweighted ratios and medians mean', () => {
    for (const m of metricsMeasurements) {
      expect(m.fields.edge_requests_total!.aggregate).toBe('sum');
      expect(m.fields.origin_status_5xx!.aggregate).toBe('sum');
      expect(m.fields.edge_hit_bytes!.aggregate).toBe('sum');
      expect(m.fields.edge_bandwidth_avg!.aggregate).toBe('mean');
      expect(m.fields.edge_request_time_0_250k!.aggregate).toBe('mean');
      // No total-bytes field to pair with: a mean, and the description says it is unweighted.
      expect(m.fields.edge_hit_ratio!.aggregate).toBe('mean');
      expect(m.fields.edge_hit_ratio!.description).toMatch(/unweighted/);
      expect(
        Object.values(m.fields).every((f) => f.aggregate !== undefined),
        m.name,
      ).toBe(true);
    }
  });

  it('turns simulator bodies into points the line protocol encoder writes with the schema types', async () => {
    const { sim } = ctx;
    const client = metricsClient(sim);
    const q = { account: sim.accounts[0]!, start: START, end: END };
    const points = [
      ...aggregateToPoints(await client.aggregate(q), START_MS),
      ...byResourceToPoints(await client.byResource(q), START_MS),
    ];
    expect(points).toHaveLength(1 + sim.world.accounts[0]!.resources.length);
    for (const point of points) {
      const def = SCHEMA.get(point.measurement)!;
      expect(Object.keys(point.fields)).toHaveLength(66);
      for (const [key, value] of Object.entries(point.fields)) {
        if (def.fields[key]!.type === 'integer') expect(Number.isInteger(value), key).toBe(true);
      }
      const line = encodePoint(point, 's', { schema: SCHEMA })!;
      expect(line).toMatch(/[ ,]edge_status_200=\d+i[ ,]/);
      expect(line).toMatch(/[ ,]edge_bandwidth_avg=[\d.]+[ ,]/);
      expect(line).not.toMatch(/[ ,]edge_bandwidth=/);
      expect(line.endsWith(` ${START_MS / 1000}`)).toBe(true);
    }
  });
});
