/**
 * The parts of undici the collector uses — an Agent and `request` — without undici's index, which loads fetch,
 * WebSocket, the cache stores and the mock agents eagerly (about 9 MB of RSS a daemon never uses). undici has no
 * `exports` map, so its modules load by path; every user imports undici through this module, so the set stays one.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

export type { Dispatcher } from 'undici';

const load = createRequire(import.meta.url);
const dispatcherBase = load('undici/lib/dispatcher/dispatcher.js') as { prototype: object };
// What undici's index does so that every dispatcher has .request(), .stream(), …: without it an Agent cannot request.
Object.assign(dispatcherBase.prototype, load('undici/lib/api/index.js') as object);
const { getGlobalDispatcher } = load('undici/lib/global.js') as { getGlobalDispatcher(): Undici.Dispatcher };

export const Agent = load('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
export type Agent = Undici.Agent;

type RequestOptions = NonNullable<Parameters<typeof Undici.request>[1]>;

/** undici's top-level `request(url, options)`: the URL split into origin and path, on `options.dispatcher` or the global one. */
export function request(url: string | URL, options: RequestOptions = {}): Promise<Undici.Dispatcher.ResponseData> {
  const target = typeof url === 'string' ? new URL(url) : url;
  const { dispatcher = getGlobalDispatcher(), ...rest } = options;
  return dispatcher.request({
    ...rest,
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
    method: rest.method ?? (rest.body ? 'PUT' : 'GET'),
  } as Undici.Dispatcher.RequestOptions);
}
