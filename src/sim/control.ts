import type { Clock } from '../clock.js';
import { isApiName } from '../spec/apis.js';
import { isFaultKind, type FaultInjector, type FaultPlan } from './faults.js';
import type { SimStats } from './stats.js';
import type { SimReply } from './routes/types.js';

/** What the control endpoints show and change of a running simulator (server.ts's Simulator extends it). */
export interface ControlTarget {
  url: string;
  token: string;
  accounts: string[];
  /** Streams that have DVR. */
  streams: Array<{ account: string; stream: string }>;
  clock: Clock;
  faults: FaultInjector;
  stats: SimStats;
}

/**
 * Control endpoints under `/_sim/` for tests and tools in another process (no token needed; the simulator listens
 * on loopback only):
 * - `GET /_sim/info` — url, token, accounts, streams (the same object `cdn-collector sim` prints first);
 * - `GET /_sim/stats` — requests, statuses, quota rejections, admitted-call times and injected faults per API;
 * - `POST /_sim/stats/reset`;
 * - `PUT /_sim/faults/<api>` with a FaultPlan body (`{}` or `null` clears it; `accounts` limits it to those accounts).
 */
export function handleControl(path: string, method: string, rawBody: string, sim: ControlTarget): SimReply {
  if (path === '/_sim/info' && method === 'GET') {
    return { status: 200, body: { url: sim.url, token: sim.token, accounts: sim.accounts, streams: sim.streams } };
  }
  if (path === '/_sim/stats' && method === 'GET') {
    return { status: 200, body: { now: sim.clock.now(), apis: sim.stats.apis, faults: sim.faults.injected } };
  }
  if (path === '/_sim/stats/reset' && method === 'POST') {
    sim.stats.reset();
    return { status: 200, body: { status: 'Completed' } };
  }
  const fault = /^\/_sim\/faults\/([a-z]+)$/.exec(path);
  if (fault && method === 'PUT') {
    const api = fault[1]!;
    if (!isApiName(api)) return { status: 404, body: { status: 'Not Found', description: `unknown api ${api}` } };
    let plan: FaultPlan | null;
    try {
      plan = rawBody ? (JSON.parse(rawBody) as FaultPlan | null) : null;
    } catch {
      return { status: 400, body: { status: 'Bad Request', description: 'body is not valid JSON' } };
    }
    const bad = [...(plan?.kinds ?? []), ...(plan?.script ?? [])].find((k) => k !== 'ok' && !isFaultKind(k));
    if (bad) return { status: 400, body: { status: 'Bad Request', description: `unknown fault kind ${bad}` } };
    const accounts = plan?.accounts;
    if (accounts !== undefined && !(Array.isArray(accounts) && accounts.every((a) => typeof a === 'string'))) {
      return { status: 400, body: { status: 'Bad Request', description: 'accounts must be a list of account names' } };
    }
    sim.faults.set(api, plan && Object.keys(plan).length > 0 ? plan : undefined);
    return { status: 200, body: { status: 'Completed', api, plan } };
  }
  return { status: 404, body: { status: 'Not Found', description: 'unknown control path' } };
}
