import { ManualClock } from '../../src/clock.js';
import { HttpClient, type TokenPlacement } from '../../src/http/client.js';
import type { Simulator } from '../../src/sim/server.js';
import { StatisticClient } from '../../src/sources/statistic/client.js';
import type { StatisticQuery } from '../../src/sources/statistic/params.js';
import { APIS } from '../../src/spec/apis.js';
import type { StatisticGrouping } from '../../src/spec/statistic.js';
import { DAY, HOUR } from '../../src/time.js';
import { rawRequest, type RawInit, type RawQuery } from '../helpers/raw-request.js';
import { reach } from '../helpers/in-process.js';

/** A fixed "now" well after the test windows, so their data is final unless a test moves the clock. */
export const NOW = Date.parse('2026-03-12T12:00:00Z');
export const WINDOW = { start: '2026-03-10T08:00:00Z', end: '2026-03-10T10:00:00Z' } as const;
export const WEEK_START = NOW - 8 * DAY;

export function newClock(at = NOW): ManualClock {
  return new ManualClock(at);
}

export function clientFor(
  sim: Simulator,
  options: { tokenPlacement?: TokenPlacement; language?: string } = {},
): StatisticClient {
  const http = new HttpClient({
    baseUrl: sim.url,
    token: sim.token,
    tokenPlacement: options.tokenPlacement,
    ...reach(sim.url),
  });
  return new StatisticClient(http, { language: options.language });
}

/** A raw call that bypasses the client (and its checks): path below the prefix, query as given, token in the header. */
export function raw(sim: Simulator, path: string, query: RawQuery, init: RawInit = {}) {
  return rawRequest<{ status?: string; data?: string } & Record<string, unknown>>(
    sim,
    APIS.statistic.prefix,
    path,
    query,
    init,
  );
}

export const HOUR_WINDOW = { start: new Date(NOW - 3 * HOUR), end: new Date(NOW - 2 * HOUR) };

/**
 * Every grouping endpoint of the spec (A2), in its order: the tests' own list, so that a grouping dropped from
 * src/spec is a failing test rather than one grouping fewer tested.
 */
export const EVERY_GROUPING = [
  'customs',
  'referrers',
  'codes',
  'regions',
  'browsers',
  'platforms',
  'resources',
  'hosts',
  'paths',
  'countries',
  'accounts',
] as const satisfies readonly StatisticGrouping[];

/** Filters the sums are checked under: none, one, two at once, and a service. */
export const FILTER_SETS: ReadonlyArray<Partial<StatisticQuery>> = [
  {},
  { country: 'RU' },
  { browser: 'Chrome', code: 200 },
  { service: 'media' },
];
