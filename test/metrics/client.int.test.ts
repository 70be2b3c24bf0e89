import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isRetryable } from '../../src/failure.js';
import { HttpClient } from '../../src/http/client.js';
import { ApiError, ResponseFormatError } from '../../src/http/errors.js';
import { SPECIAL_TOKENS } from '../../src/sim/auth.js';
import { MetricsClient } from '../../src/sources/metrics/client.js';
import type { MetricsResourceElement } from '../../src/sources/metrics/schema.js';
import {
  METRIC_NAMES,
  METRIC_SIDES,
  metricKind,
  STATUS_CLASSES,
  STATUS_CODES,
  statusClassMetric,
  statusClassOf,
  statusMetric,
} from '../../src/spec/metrics.js';
import { MINUTE } from '../../src/time.js';
import { useSimulator } from '../helpers/sim.js';
import { END, metricsClient, START, START_MS } from './helpers.js';

const ctx = useSimulator({ world: { accounts: 3, resourcesPerAccount: 4 } });
const COUNTED = METRIC_NAMES.filter((n) => metricKind(n) === 'count' || metricKind(n) === 'hit_bytes');

/** Several windows (lengths 1, 3 and 10 minutes) so that sums are checked on more than one draw of the model. */
const WINDOWS = [
  [START_MS, START_MS + MINUTE],
  [START_MS + 7 * MINUTE, START_MS + 10 * MINUTE],
  [START_MS + 600 * MINUTE, START_MS + 610 * MINUTE],
] as const;

function expectStatusesAddUp(values: Record<string, number | null>, label: string): void {
  for (const side of METRIC_SIDES) {
    for (const cls of STATUS_CLASSES) {
      const codes = STATUS_CODES.filter((c) => statusClassOf(c) === cls);
      const sum = codes.reduce((s, c) => s + values[statusMetric(side, c)]!, 0);
      expect(sum, `${label} ${side} ${cls}`).toBe(values[statusClassMetric(side, cls)]);
    }
    const classes = STATUS_CLASSES.reduce((s, c) => s + values[statusClassMetric(side, c)]!, 0);
    expect(classes, `${label} ${side} classes`).toBe(values[`${side}_requests_total`]);
    expect(values[`${side}_requests_total`], `${label} ${side} has traffic`).toBeGreaterThan(0);
  }
}

describe('MetricsClient against the simulator', () => {
  it('sends several metrics as repeated metric parameters and gets exactly those back', async () => {
    const { sim } = ctx;
    const metrics = ['edge_status_404', 'origin_requests_total', 'edge_request_time_4m_plus'];
    const body = await metricsClient(sim).aggregate({ account: sim.accounts[0]!, start: START, end: END, metrics });
    expect(body.metrics).toEqual(metrics);
    expect(Object.keys(body.data[0]!)).toEqual(metrics);
    expect(body).toMatchObject({ status: 'OK', start: START, end: END, account: sim.accounts[0] });
  });

  it('returns every metric when metric is omitted (the chosen default set)', async () => {
    const { sim } = ctx;
    const body = await metricsClient(sim).byResource({ account: sim.accounts[1]!, start: START, end: END });
    expect(body.metrics).toEqual([...METRIC_NAMES]);
    for (const element of body.data)
      expect(Object.keys(element).sort()).toEqual(['cname', 'resource', 'resource_name', ...METRIC_NAMES].sort());
  });

  it('lists every resource of the account with its cname, identifier and (hostile) name', async () => {
    const { sim } = ctx;
    const account = sim.world.accounts[2]!;
    const body = await metricsClient(sim).byResource({
      account: account.name,
      start: START,
      end: END,
      metrics: ['edge_bandwidth'],
    });
    expect(body.data.map((e) => [e.cname, e.resource, e.resource_name])).toEqual(
      account.resources.map((r) => [r.cname, r.id, r.name]),
    );
  });

  it('aggregate equals the sum over resources for every count, per account and window', async () => {
    const { sim } = ctx;
    const client = metricsClient(sim);
    for (const account of sim.accounts) {
      for (const [start, end] of WINDOWS) {
        const q = { account, start, end };
        const [total, perResource] = await Promise.all([client.aggregate(q), client.byResource(q)]);
        const row = total.data[0]!;
        for (const name of COUNTED) {
          const sum = perResource.data.reduce((s, e) => s + (e[name] as number), 0);
          expect(row[name], `${account} ${name}`).toBe(sum);
          expect(Number.isInteger(row[name]), name).toBe(true);
        }
        const bandwidth = perResource.data.reduce((s, e) => s + (e.edge_bandwidth as number), 0);
        expect(row.edge_bandwidth).toBeCloseTo(bandwidth, 0);
      }
    }
  });

  it('aggregate with a resource filter equals that resource alone', async () => {
    const { sim } = ctx;
    const client = metricsClient(sim);
    const account = sim.world.accounts[0]!;
    const resource = account.resources[1]!.id;
    const all = await client.byResource({ account: account.name, start: START, end: END });
    const one = await client.aggregate({ account: account.name, start: START, end: END, resource });
    const filtered = await client.byResource({ account: account.name, start: START, end: END, resource });
    const element = all.data.find((e) => e.resource === resource)!;
    expect(filtered.data).toEqual([element]);
    for (const name of METRIC_NAMES) expect(one.data[0]![name], name).toBe(element[name]);
  });

  it('status codes of a class sum to the class and classes to requests_total, in totals and per resource', async () => {
    const { sim } = ctx;
    const client = metricsClient(sim);
    for (const [start, end] of WINDOWS) {
      const q = { account: sim.accounts[1]!, start, end };
      const total = await client.aggregate(q);
      expectStatusesAddUp(total.data[0]!, 'aggregate');
      for (const e of (await client.byResource(q)).data) expectStatusesAddUp(e as MetricsResourceElement, e.resource);
    }
  });

  it('serves plausible rates: hit ratio in (0, 1), cached < total bytes, medians > 0, origin slower', async () => {
    const { sim } = ctx;
    const row = (await metricsClient(sim).aggregate({ account: sim.accounts[0]!, start: START, end: END })).data[0]!;
    expect(row.edge_hit_ratio).toBeGreaterThan(0);
    expect(row.edge_hit_ratio).toBeLessThan(1);
    expect(row.edge_hit_bytes!).toBeLessThan((row.edge_bandwidth! * 300) / 8);
    expect(row.edge_request_time_0_250k).toBeGreaterThan(0);
    expect(row.origin_request_time_4m_plus!).toBeGreaterThan(row.edge_request_time_4m_plus!);
    expect(row.origin_requests_total!).toBeLessThan(row.edge_requests_total!);
  });
});

describe('MetricsClient errors', () => {
  async function failure(client: MetricsClient, account: string): Promise<unknown> {
    return client.aggregate({ account, start: START, end: END }).catch((e: unknown) => e);
  }

  function expectForbidden(error: unknown, secret: string): void {
    expect(error).toBeInstanceOf(ApiError);
    const e = error as ApiError;
    expect(e).toMatchObject({ status: 403, apiStatus: 'Forbidden' });
    expect(isRetryable(e)).toBe(false);
    expect(e.description).toBeTruthy();
    expect(e.request.api).toBe('metrics');
    expect(e.request.url).toContain('/app/metrics/v1/?account=');
    expect(`${e.message} ${e.request.url} ${JSON.stringify(e.body)} ${e.stack}`).not.toContain(secret);
  }

  it('an expired token is a typed 403 without the token anywhere', async () => {
    const { sim } = ctx;
    expectForbidden(
      await failure(metricsClient(sim, SPECIAL_TOKENS.expired), sim.accounts[0]!),
      SPECIAL_TOKENS.expired,
    );
  });

  it('a wrong token is a typed 403 without the token anywhere', async () => {
    const { sim } = ctx;
    const wrong = 'not-a-token-0123456789';
    expectForbidden(await failure(metricsClient(sim, wrong), sim.accounts[0]!), wrong);
  });

  it('an account the token may not read is a typed 403', async () => {
    const { sim } = ctx;
    const limited = 'limited-token-abcdef';
    sim.addToken(limited, { accounts: [sim.accounts[0]!] });
    expect(
      (await metricsClient(sim, limited).aggregate({ account: sim.accounts[0]!, start: START, end: END })).account,
    ).toBe(sim.accounts[0]);
    const error = await failure(metricsClient(sim, limited), sim.accounts[1]!);
    expectForbidden(error, limited);
    // The one documented text for a dead token and for no access; the call names its account.
    expect(error).toMatchObject({ description: 'Invalid token or no access', request: { account: sim.accounts[1] } });
  });

  it('a malformed 200 body is a ResponseFormatError', async () => {
    const { sim } = ctx;
    sim.faults.set('metrics', { script: ['malformed'] });
    try {
      expect(await failure(metricsClient(sim), sim.accounts[0]!)).toBeInstanceOf(ResponseFormatError);
    } finally {
      sim.faults.set('metrics', undefined);
    }
  });

  it('a body that echoes another window than requested is a ResponseFormatError naming the field', async () => {
    const echo = { status: 'OK', start: '2024-05-01T09:00:00', end: END, account: 'acme', metrics: [], data: [] };
    const server = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(echo)),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const http = new HttpClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      token: 't0ken-xyz',
    });
    try {
      const error = await failure(new MetricsClient(http), 'acme');
      expect(error).toBeInstanceOf(ResponseFormatError);
      expect((error as ResponseFormatError).problem).toMatch(/^start: /);
    } finally {
      await http.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
