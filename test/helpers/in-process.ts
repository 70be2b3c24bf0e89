/**
 * The simulator answering in the test's own process, through an undici Dispatcher: no port, no socket, so a test of
 * a client, a source, a pass or the collector is a unit test. Clients and runtimes made here reach it by its `url`.
 */
import { request } from 'undici';
import { afterAll, beforeAll } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/app/runtime.js';
import type { CollectorConfig } from '../../src/config/schema.js';
import { HttpClient, type HttpClientOptions } from '../../src/http/client.js';
import type { Dispatcher } from '../../src/http/undici.js';
import type { Logger } from '../../src/log.js';
import { inProcessSimulator, type InProcessSimulator } from '../../src/sim/dispatcher.js';
import type { Simulator, SimulatorOptions } from '../../src/sim/server.js';

export type { InProcessSimulator } from '../../src/sim/dispatcher.js';

/** Every in-process simulator of this test file by its `url`, so a config pointed at one reaches it. */
const byUrl = new Map<string, Dispatcher>();

/** A simulator answering in process (see the top of this file). */
export function simInProcess(options: SimulatorOptions = {}): InProcessSimulator {
  const sim = inProcessSimulator(options);
  byUrl.set(sim.url, sim.dispatcher);
  return sim;
}

/** A simulator in process for the test file (made before its tests). Read `.sim` inside tests. */
export function useSimInProcess(options: SimulatorOptions = {}): { readonly sim: InProcessSimulator } {
  const holder: { sim?: InProcessSimulator } = {};
  beforeAll(() => {
    holder.sim = simInProcess(options);
  });
  afterAll(() => holder.sim?.close());
  return {
    get sim(): InProcessSimulator {
      if (!holder.sim) throw new Error('simulator not made yet');
      return holder.sim;
    },
  };
}

/** The in-process simulator's dispatcher for `baseUrl`, or undefined when none answers there. */
export function dispatcherFor(baseUrl: string): Dispatcher | undefined {
  return byUrl.get(baseUrl.replace(/\/+$/, ''));
}

/** An HttpClient of `sim`'s url and token (both may be overridden) that reaches it in process. */
export function simClient(sim: Simulator, options: Partial<HttpClientOptions> = {}): HttpClient {
  return new HttpClient({ baseUrl: sim.url, token: sim.token, ...reach(sim.url), ...options });
}

/** createRuntime, its calls and logins sent to the in-process simulator at `config.api.baseUrl` (when there is one). */
export function runtimeInProcess(
  config: CollectorConfig,
  clock: Clock,
  log: Logger,
  options: RuntimeOptions = {},
): Promise<Runtime> {
  return createRuntime(config, clock, log, { ...reach(config.api.baseUrl), ...options });
}

/** `{ dispatcher }` of the in-process simulator at `baseUrl`, or nothing (a server's URL): spread it into options. */
export function reach(baseUrl: string): { dispatcher?: Dispatcher } {
  const dispatcher = dispatcherFor(baseUrl);
  return dispatcher ? { dispatcher } : {};
}

/** fetch (Node's), through the in-process simulator when `url` is one's; otherwise over the network as usual. */
export function simFetch(url: string, init: RequestInit = {}): Promise<Response> {
  // Node's fetch takes undici's `dispatcher` option, which its RequestInit type does not declare.
  return fetch(url, { ...init, ...reach(new URL(url).origin) } as RequestInit);
}

/** undici's request, through the in-process simulator when `url` is one's. */
export function simRequest(url: string, options: Parameters<typeof request>[1] = {}): ReturnType<typeof request> {
  return request(url, { ...options, ...reach(new URL(url).origin) });
}
