import { HttpClient, type TokenPlacement } from '../../src/http/client.js';
import { ManualClock } from '../../src/clock.js';
import { StreamstatClient, type StreamstatClientOptions } from '../../src/sources/streamstat/client.js';
import type { Simulator } from '../../src/sim/server.js';

/** A fixed "now" so that data is deterministic; windows in the past of it are complete (no lag). */
export const NOW = Date.UTC(2026, 2, 10, 12, 0);
export const newClock = (): ManualClock => new ManualClock(NOW);

/** A one-hour window that ended well before NOW. */
export const WINDOW = { start: '2026-03-10T08:00:00Z', end: '2026-03-10T09:00:00Z' } as const;

export function clientFor(sim: Simulator, placement: TokenPlacement = 'query', options?: StreamstatClientOptions): StreamstatClient {
  return new StreamstatClient(new HttpClient({ baseUrl: sim.url, token: sim.token, tokenPlacement: placement }), options);
}

/** A raw GET below the streamstat prefix, token in the query unless told otherwise. */
export async function rawGet(
  sim: Simulator,
  path: string,
  params: Record<string, string | string[]>,
  init: { headers?: Record<string, string>; token?: 'query' | 'header' | 'none' } = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const one of Array.isArray(v) ? v : [v]) qs.append(k, one);
  const token = init.token ?? 'query';
  if (token === 'query') qs.set('cdnauthtoken', sim.token);
  const headers: Record<string, string> = { ...init.headers };
  if (token === 'header') headers['cdn-auth-token'] = sim.token;
  const res = await fetch(`${sim.url}/app/streamstat/v2${path}?${qs.toString()}`, { headers });
  return { status: res.status, body: await res.json(), headers: res.headers };
}
