import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { aggregatePeriods, resourcePeriod } from '../../src/sim/model/metrics.js';
import { minuteTraffic } from '../../src/sim/model/traffic.js';
import { createWorld } from '../../src/sim/model/world.js';
import { MetricsClient } from '../../src/sources/metrics/client.js';
import { MINUTE } from '../../src/time.js';
import { START_MS } from './helpers.js';
import { simInProcess, simClient } from '../helpers/in-process.js';

const world = createWorld({ seed: 7 });
const account = world.accounts[0]!;
const resource = account.resources[0]!;
const END_MS = START_MS + 5 * MINUTE;

describe('metrics simulator model', () => {
  it('derives totals, hit bytes and bandwidth from the per-minute traffic model', () => {
    const minutes = [0, 1, 2, 3, 4].map((i) => minuteTraffic(world, account.name, resource, START_MS + i * MINUTE));
    const sum = (key: keyof (typeof minutes)[number]) => minutes.reduce((s, m) => s + m[key], 0);
    const { row } = resourcePeriod(world, account.name, resource, START_MS, END_MS, Infinity);
    expect(row.edge_requests_total).toBe(sum('requests'));
    expect(row.origin_requests_total).toBe(sum('originRequests'));
    expect(row.edge_hit_bytes).toBe(sum('cachedBytes'));
    expect(row.edge_bandwidth).toBeCloseTo((sum('bytes') * 8) / 300, 2);
    expect(row.origin_bandwidth).toBeCloseTo((sum('originBytes') * 8) / 300, 2);
    expect(row.edge_hit_ratio).toBeCloseTo(sum('cachedBytes') / sum('bytes'), 5);
  });

  it('is deterministic for the same seed and coordinates', () => {
    const a = resourcePeriod(world, account.name, resource, START_MS, END_MS, Infinity);
    const b = resourcePeriod(createWorld({ seed: 7 }), account.name, resource, START_MS, END_MS, Infinity);
    expect(a.row).toEqual(b.row);
  });

  it('has no traffic for minutes not finished yet; undefined ratios and medians are null', () => {
    const partial = resourcePeriod(world, account.name, resource, START_MS, END_MS, START_MS + 2 * MINUTE + 30_000);
    const twoMinutes = resourcePeriod(world, account.name, resource, START_MS, START_MS + 2 * MINUTE, Infinity);
    expect(partial.row.edge_requests_total).toBe(twoMinutes.row.edge_requests_total);
    const future = resourcePeriod(world, account.name, resource, START_MS, END_MS, START_MS);
    expect(future.row).toMatchObject({
      edge_requests_total: 0,
      edge_status_200: 0,
      edge_bandwidth: 0,
      edge_hit_ratio: null,
    });
    expect(future.row.edge_request_time_0_250k).toBeNull();
    expect(aggregatePeriods([future], START_MS, END_MS).origin_request_time_1m_2m).toBeNull();
  });

  it('weights the aggregate median by each resource 2xx count, between the resource medians', () => {
    const parts = account.resources.map((r) => resourcePeriod(world, account.name, r, START_MS, END_MS, Infinity));
    const medians = parts.map((p) => p.row.edge_request_time_2m_3m!);
    const total = aggregatePeriods(parts, START_MS, END_MS).edge_request_time_2m_3m!;
    expect(total).toBeGreaterThanOrEqual(Math.min(...medians));
    expect(total).toBeLessThanOrEqual(Math.max(...medians));
  });

  it('serves the window that is still running with only its finished minutes (simulator clock)', async () => {
    const clock = new ManualClock(START_MS + 3 * MINUTE);
    const sim = simInProcess({ seed: 7, clock });
    const http = simClient(sim, { token: sim.token });
    try {
      const client = new MetricsClient(http);
      const q = { account: account.name, start: START_MS, end: END_MS, metrics: ['edge_requests_total'] };
      const early = (await client.aggregate(q)).data[0]!.edge_requests_total!;
      clock.set(END_MS);
      const done = (await client.aggregate(q)).data[0]!.edge_requests_total!;
      expect(early).toBeGreaterThan(0);
      expect(done).toBeGreaterThan(early);
    } finally {
      await http.close();
      await sim.close();
    }
  });
});
