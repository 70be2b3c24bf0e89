import type { Simulator } from '../../src/sim/server.js';
import { simFetch } from './in-process.js';

/** A query as a test writes it: a string, an object (arrays repeat a key) or pairs (a key may repeat). */
export type RawQuery = string | Record<string, string | string[]> | Array<[string, string]>;

export interface RawInit {
  method?: string;
  /** Sent as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Where the token goes (default `header`); a `cdn-auth-token` header or `cdnauthtoken` query given here wins. */
  token?: 'header' | 'query' | 'none';
  /** The token sent (default the simulator's). */
  tokenValue?: string;
}

export interface RawReply<B> {
  status: number;
  body: B;
  headers: Headers;
}

/**
 * A request straight to the simulator at `prefix` + `path`, bypassing the clients and their checks, to see the
 * simulator's own answers to what the clients refuse to send. The one raw builder of the API tests.
 */
export async function rawRequest<B = Record<string, unknown>>(
  sim: Simulator,
  prefix: string,
  path: string,
  query: RawQuery = {},
  init: RawInit = {},
): Promise<RawReply<B>> {
  const params = new URLSearchParams();
  const pairs =
    typeof query === 'string' ? [...new URLSearchParams(query)] : Array.isArray(query) ? query : Object.entries(query);
  for (const [k, v] of pairs) for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
  const token = init.tokenValue ?? sim.token;
  const headers: Record<string, string> = { ...init.headers };
  const placement = init.token ?? 'header';
  if (placement === 'header') headers['cdn-auth-token'] ??= token;
  if (placement === 'query' && !params.has('cdnauthtoken')) params.set('cdnauthtoken', token);
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const qs = params.toString();
  const res = await simFetch(`${sim.url}${prefix}${path}${qs ? `?${qs}` : ''}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as B, headers: res.headers };
}
