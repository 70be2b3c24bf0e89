import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.js';
import type { MetricsQuery } from '../../src/sources/metrics/client.js';
import { MINUTE } from '../../src/time.js';
import { END, END_MS, metricsClient, START, START_MS } from './helpers.js';
import { useSimInProcess } from '../helpers/in-process.js';

const ctx = useSimInProcess();

type Case = [title: string, parameter: string, change: Partial<MetricsQuery> | ((q: MetricsQuery) => MetricsQuery)];
const BROKEN: Case[] = [
  ['account missing', 'account', (q) => ({ ...q, account: undefined as unknown as string })],
  ['account empty', 'account', { account: '' }],
  ['account blank', 'account', { account: '  ' }],
  ['start missing', 'start', (q) => ({ ...q, start: undefined as unknown as string })],
  ['end missing', 'end', (q) => ({ ...q, end: undefined as unknown as string })],
  ['start unparsable', 'start', { start: 'yesterday' }],
  ['end unparsable', 'end', { end: '2024-05-01T25:99:00' }],
  ['start with seconds', 'start', { start: '2024-05-01T10:00:30' }],
  ['end with milliseconds', 'end', { end: END_MS + 500 }],
  ['start equal to end', 'end', { end: START }],
  ['start after end', 'end', { start: END, end: START }],
  ['period of 11 minutes', 'end', { end: START_MS + 11 * MINUTE }],
  ['unknown metric', 'metric', { metrics: ['edge_bandwidth', 'edge_status_418'] }],
  ['the spec label 4M+ as a name', 'metric', { metrics: ['edge_request_time_4M+'] }],
  ['origin-only hit ratio (edge only)', 'metric', { metrics: ['origin_hit_ratio'] }],
  ['empty metric list', 'metric', { metrics: [] }],
  ['empty resource', 'resource', { resource: '' }],
];

describe('MetricsClient rules (checked before any request)', () => {
  const operations = ['aggregate', 'byResource'] as const;
  for (const operation of operations) {
    it.each(BROKEN)(`${operation}: %s → ParameterError naming %s, no request`, async (_title, parameter, change) => {
      const { sim } = ctx;
      const base: MetricsQuery = { account: sim.accounts[0]!, start: START, end: END };
      const query = typeof change === 'function' ? change(base) : { ...base, ...change };
      const before = sim.stats.apis.metrics.requests;
      const error = await metricsClient(sim)
        [operation](query)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ParameterError);
      expect((error as ParameterError).parameter).toBe(parameter);
      expect((error as ParameterError).message.startsWith(`${parameter}: `)).toBe(true);
      expect(sim.stats.apis.metrics.requests).toBe(before);
    });
  }

  it('accepts the period bounds of 1 and 10 minutes', async () => {
    const { sim } = ctx;
    const client = metricsClient(sim);
    const account = sim.accounts[0]!;
    const one = await client.aggregate({
      account,
      start: START_MS,
      end: START_MS + MINUTE,
      metrics: ['edge_requests_total'],
    });
    const ten = await client.aggregate({
      account,
      start: START_MS,
      end: START_MS + 10 * MINUTE,
      metrics: ['edge_requests_total'],
    });
    expect(one.end).toBe('2024-05-01T10:01:00');
    expect(ten.end).toBe('2024-05-01T10:10:00');
    expect(ten.data[0]!.edge_requests_total).toBeGreaterThan(one.data[0]!.edge_requests_total!);
  });

  it('accepts Date, epoch ms and zoned ISO strings and sends them as YYYY-MM-DDThh:mm:00 UTC', async () => {
    const { sim } = ctx;
    const body = await metricsClient(sim).aggregate({
      account: sim.accounts[0]!,
      start: new Date(START_MS),
      end: '2024-05-01T12:05:00+02:00',
    });
    expect(body.start).toBe(START);
    expect(body.end).toBe(END);
  });
});
