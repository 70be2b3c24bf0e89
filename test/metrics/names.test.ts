import { describe, expect, it } from 'vitest';
import {
  isMetricName,
  METRIC_NAMES,
  METRIC_SIDES,
  metricFieldType,
  STATUS_CLASSES,
  STATUS_CODES,
  statusClassMetric,
  statusMetric,
} from '../../src/spec/metrics.js';

describe('metric names', () => {
  it('lists 32 names per side plus the two edge-only ones, without duplicates', () => {
    expect(METRIC_NAMES).toHaveLength(2 * (1 + 18 + 4 + 1 + 8) + 2);
    expect(new Set(METRIC_NAMES).size).toBe(METRIC_NAMES.length);
    expect(STATUS_CODES).toHaveLength(18);
  });

  it('includes the spec examples and the chosen request_time spelling', () => {
    for (const name of [
      'origin_status_404',
      'edge_status_2xx',
      'origin_requests_total',
      'edge_bandwidth',
      'edge_hit_ratio',
      'edge_hit_bytes',
    ]) {
      expect(isMetricName(name), name).toBe(true);
    }
    expect(isMetricName('edge_request_time_0_250k')).toBe(true);
    expect(isMetricName('origin_request_time_4m_plus')).toBe(true);
  });

  it('rejects unknown names, edge-only metrics on the origin side and the unsafe 4M+ label', () => {
    for (const name of [
      'origin_hit_ratio',
      'origin_hit_bytes',
      'edge_status_418',
      'edge_request_time_4M+',
      'edge_request_time',
      'EDGE_BANDWIDTH',
      '',
    ]) {
      expect(isMetricName(name), name).toBe(false);
    }
  });

  it('uses only characters safe as query values and field names', () => {
    for (const name of METRIC_NAMES) expect(name).toMatch(/^(origin|edge)_[a-z0-9_]+$/);
  });

  it('types counts and hit bytes as integers, bandwidth, ratio and request time as floats', () => {
    const integers = [
      ...METRIC_SIDES.flatMap((s) => [
        ...STATUS_CODES.map((c) => statusMetric(s, c)),
        ...STATUS_CLASSES.map((c) => statusClassMetric(s, c)),
        `${s}_requests_total`,
      ]),
      'edge_hit_bytes',
    ];
    expect(METRIC_NAMES.filter((n) => metricFieldType(n) === 'integer').sort()).toEqual(integers.sort());
    expect(metricFieldType('edge_hit_ratio')).toBe('float');
    expect(metricFieldType('origin_bandwidth')).toBe('float');
    expect(metricFieldType('edge_request_time_1m_2m')).toBe('float');
  });
});
