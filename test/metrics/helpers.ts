import { HttpClient } from '../../src/http/client.js';
import { MetricsClient } from '../../src/sources/metrics/client.js';
import type { Simulator } from '../../src/sim/server.js';
import { rawRequest } from '../helpers/raw-request.js';
import { APIS } from '../../src/spec/apis.js';
import { reach } from '../helpers/in-process.js';

/** A finished window in the past, so every minute of it has traffic whatever the wall clock says. */
export const START = '2024-05-01T10:00:00';
export const END = '2024-05-01T10:05:00';
export const START_MS = Date.UTC(2024, 4, 1, 10, 0);
export const END_MS = Date.UTC(2024, 4, 1, 10, 5);

export function metricsClient(sim: Simulator, token = sim.token): MetricsClient {
  return new MetricsClient(new HttpClient({ baseUrl: sim.url, token, ...reach(sim.url) }));
}

/** Calls the simulator directly, bypassing the client's checks, to see the simulator's own answers. */
export function rawGet(
  sim: Simulator,
  path: string,
  query: Array<[string, string]>,
  /** `null`: send no token at all. */
  token: string | null = sim.token,
) {
  const init = token === null ? ({ token: 'none' } as const) : { tokenValue: token };
  // Status and body only: the tests compare the whole reply.
  return rawRequest(sim, APIS.metrics.prefix, path, query, init).then(({ status, body }) => ({ status, body }));
}

/** `[['account', a], ['start', START], ['end', END]]` plus extra pairs. */
export function baseQuery(account: string, ...extra: Array<[string, string]>): Array<[string, string]> {
  return [['account', account], ['start', START], ['end', END], ...extra];
}
