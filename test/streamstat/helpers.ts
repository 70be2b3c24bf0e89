import { HttpClient, type TokenPlacement } from '../../src/http/client.js';
import { ManualClock } from '../../src/clock.js';
import { StreamstatClient, type StreamstatClientOptions } from '../../src/sources/streamstat/client.js';
import type { Simulator } from '../../src/sim/server.js';
import { rawRequest, type RawInit, type RawQuery } from '../helpers/raw-request.js';
import { APIS } from '../../src/spec/apis.js';
import { reach } from '../helpers/in-process.js';

/** A fixed "now" so that data is deterministic; windows in the past of it are complete (no lag). */
export const NOW = Date.UTC(2026, 2, 10, 12, 0);
export const newClock = (): ManualClock => new ManualClock(NOW);

/** A one-hour window that ended well before NOW. */
export const WINDOW = { start: '2026-03-10T08:00:00Z', end: '2026-03-10T09:00:00Z' } as const;

export function clientFor(
  sim: Simulator,
  placement: TokenPlacement = 'query',
  options?: StreamstatClientOptions,
): StreamstatClient {
  return new StreamstatClient(
    new HttpClient({ baseUrl: sim.url, token: sim.token, tokenPlacement: placement, ...reach(sim.url) }),
    options,
  );
}

/** A raw GET below the streamstat prefix, token in the query unless told otherwise. */
export function rawGet(sim: Simulator, path: string, params: RawQuery, init: RawInit = {}) {
  return rawRequest<unknown>(sim, APIS.streamstat.prefix, path, params, { token: 'query', ...init });
}
