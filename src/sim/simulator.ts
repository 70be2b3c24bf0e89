import { systemClock, type Clock } from '../clock.js';
import type { ApiName } from '../spec/apis.js';
import { authenticate, liveGrant, SPECIAL_TOKENS, type TokenGrant } from './auth.js';
import { handleControl, type ControlTarget } from './control.js';
import { errorBody } from './model/error-body.js';
import { FaultInjector, type FaultKind, type FaultPlan } from './faults.js';
import { SimLoginService, type SimLogin } from './login.js';
import { INVENTORY_ACCOUNTS_PATH, inventoryAccounts } from './inventory.js';
import { LOGIN_PATH } from '../spec/login.js';
import { createWorld, type World, type WorldOptions } from './model/world.js';
import { defaultQuotas, SlidingQuota, type QuotaRule } from './quota.js';
import { routes as defaultRoutes } from './routes/index.js';
import { SimStats } from './stats.js';
import { encodeAnswer } from './content-encoding.js';
import { hexNodeIds, realShape } from './real-shapes.js';
import type { SimContext, SimSettings } from './model/context.js';
import type { ApiRoute, SimReply, SimRequest } from './routes/types.js';

/**
 * The simulator apart from how requests reach it: `answer` takes one request and gives the bytes to send back. The
 * HTTP server (server.ts) and the in-process undici dispatcher (dispatcher.ts) both carry requests to it.
 */

export interface SimulatorOptions {
  host?: string;
  port?: number;
  seed?: number;
  world?: Partial<Omit<WorldOptions, 'seed'>>;
  clock?: Clock;
  quotas?: Partial<Record<ApiName, QuotaRule | null>>;
  settings?: Partial<SimSettings>;
  faults?: Partial<Record<ApiName, FaultPlan>>;
  /** The main token; by default derived from the seed. */
  token?: string;
  /** Credentials of the login that issues expiring tokens; without them the login path answers 404. */
  login?: SimLogin;
}

export interface Simulator extends ControlTarget {
  world: World;
  settings: SimSettings;
  quota: SlidingQuota;
  /** Grants another token (e.g. one limited to some accounts). */
  addToken(token: string, grant: TokenGrant): void;
  /** Logins answered, successful or not. */
  readonly logins: number;
  /** The login service (with `login`): its refusals and ban, for tests. */
  readonly loginService: SimLoginService | undefined;
  /** Expires every token the login issued so far (as if the service restarted), so tests reach the refusal path. */
  expireLoginTokens(): void;
  /**
   * Drops every token the login issued so far, long before its lifetime (revoked, or rotated by another client's
   * login): the service no longer knows them, and metrics answers its one 403 text, as for an account it refuses.
   */
  revokeLoginTokens(): void;
  close(): Promise<void>;
}

/** One request as it arrived: method, path with query, headers (lower-case names) and the body's text. */
export interface SimExchange {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** What goes back: a status, headers and body, or `reset` (the connection dropped without an answer). */
export type SimAnswer = { status: number; headers: Record<string, string>; body: Buffer | string } | { reset: true };

export interface SimulatorCore extends Omit<Simulator, 'close'> {
  answer(exchange: SimExchange): Promise<SimAnswer>;
}

export const defaultSettings: SimSettings = {
  statisticLagMs: 60 * 60_000,
  streamstatLagMs: 5 * 60_000,
  defaultLimit: 100,
  maxLimit: 1000,
  failingDvrNodes: [],
  dvrWindowSec: 4 * 3600,
  shapes: 'seed',
  streamstatShape: 'buckets',
  metricsRefusal: 'Invalid token or no access',
  metricsDeniedAccounts: [],
  inventory: true,
  metricsMaxPeriodMinutes: 10,
  contentEncoding: '',
};

const MALFORMED_BODY = '{"status":"Completed","data":[{"broken":';

/** The simulator of `options` answering as `url` (what `/_sim/info` shows and clients are configured with). */
export function createSimulator(options: SimulatorOptions, url: string): SimulatorCore {
  const seed = options.seed ?? 42;
  const settings: SimSettings = { ...defaultSettings, ...options.settings };
  const seeded = createWorld({ ...options.world, seed });
  const world = settings.shapes === 'real' ? hexNodeIds(seeded) : seeded;
  const clock = options.clock ?? systemClock;
  const token = options.token ?? `sim-${seed.toString(16)}-${((seed * 2654435761) >>> 0).toString(36)}`;
  const tokens = new Map<string, TokenGrant>([
    [token, { accounts: world.accounts.map((a) => a.name) }],
    [SPECIAL_TOKENS.expired, { accounts: world.accounts.map((a) => a.name), expired: true }],
    [SPECIAL_TOKENS.noAccounts, { accounts: [] }],
  ]);
  const quota = new SlidingQuota({ ...defaultQuotas, ...options.quotas });
  const faults = new FaultInjector(seed);
  for (const [api, plan] of Object.entries(options.faults ?? {})) faults.set(api as ApiName, plan);
  const stats = new SimStats();
  const ctx: SimContext = { world, clock, settings };
  const routes: ApiRoute[] = defaultRoutes;
  const loginService = options.login ? new SimLoginService(options.login) : undefined;
  const revokeLoginTokens = () => {
    for (const [t, grant] of tokens) if (grant.quotaKey?.startsWith('user:')) tokens.delete(t);
  };

  async function handle(req: SimExchange): Promise<SimAnswer> {
    const url = new URL(req.url || '/', 'http://sim');
    const rawBody = req.body;
    const encode = encoding(req);
    if (url.pathname.startsWith('/_sim/')) {
      return send(handleControl(url.pathname, req.method, rawBody, sim));
    }
    if (url.pathname === LOGIN_PATH && req.method === 'POST' && loginService) {
      const accounts = world.accounts.map((a) => a.name);
      const issue = (t: string, grant: Omit<TokenGrant, 'accounts'>) => {
        if (loginService.rotates) revokeLoginTokens();
        tokens.set(t, { ...grant, accounts });
      };
      return send(loginService.handle(rawBody, clock.now(), issue), encode);
    }
    if (url.pathname.replace(/\/?$/, '/') === INVENTORY_ACCOUNTS_PATH && req.method === 'GET' && settings.inventory) {
      const grant = liveGrant(tokens, req.headers, clock.now());
      // The vendor's page: a refused token is answered 401 with no body.
      if (!grant) return send({ status: 401, body: undefined });
      return send({ status: 200, body: inventoryAccounts(grant.accounts) }, encode);
    }
    const route = routes.find((r) => url.pathname === r.prefix || url.pathname.startsWith(`${r.prefix}/`));
    if (!route) return send({ status: 404, body: { status: 'Not Found', description: 'unknown path' } });
    const api = route.api;
    stats.request(api);
    const reply = (r: SimReply): SimAnswer => {
      stats.status(api, r.status);
      return send(r, encode);
    };

    const fault = faults.next(api, url.searchParams.get('account') ?? undefined);
    // A slow fault delays the answer, not the arrival: the quota counts the call now, as a real gateway would (a
    // client that gives up early must still see its call counted at arrival, never later).
    if (fault && fault !== 'slow') {
      const faulty = faultAnswer(fault, api, reply);
      if (faulty) return faulty;
    }
    const paging =
      fault === 'page-cap'
        ? { cap: faults.get(api)?.pageCap ?? 2 }
        : fault === 'ignore-offset'
          ? { ignoreOffset: true }
          : undefined;

    const auth = authenticate(api, tokens, req.headers, url.searchParams, clock.now(), settings.metricsRefusal);
    if (!auth.ok) return reply(auth.reply);
    const retryAfter = quota.tryAdmit(api, auth.quotaKey, clock.now());
    if (retryAfter !== undefined) {
      stats.quotaRejected(api);
      return reply(tooManyRequests(api, retryAfter));
    }
    stats.admitted(api, clock.now());
    if (fault === 'slow') await new Promise((r) => setTimeout(r, faults.get(api)?.slowMs ?? 3000));

    let body: unknown;
    if (rawBody.length > 0) {
      try {
        body = JSON.parse(rawBody);
      } catch {
        return reply({ status: 400, body: { status: 'Bad Request', description: 'body is not valid JSON' } });
      }
    }
    const simReq: SimRequest = {
      method: req.method,
      path: url.pathname.slice(route.prefix.length) || '/',
      query: url.searchParams,
      headers: req.headers,
      body,
      accounts: auth.accounts,
      ...(paging ? { paging } : {}),
    };
    const answer = await route.handle(simReq, ctx);
    return reply(settings.shapes === 'real' ? realShape(api, answer) : answer);
  }

  /** The answer of a fault that answers (or drops) the request itself; undefined when the request goes on. */
  function faultAnswer(kind: FaultKind, api: ApiName, reply: (r: SimReply) => SimAnswer): SimAnswer | undefined {
    const plan = faults.get(api);
    switch (kind) {
      case 'reset':
        return { reset: true };
      case 'malformed':
        stats.status(api, 200);
        return { status: 200, headers: { 'content-type': 'application/json' }, body: MALFORMED_BODY };
      case '429':
        return reply(tooManyRequests(api, plan?.retryAfterSec ?? 1));
      case '500':
        return reply({ status: 500, body: errorBody(api, 'Internal Server Error', 'Internal Server Error') });
      case '504':
        return reply({ status: 504, body: errorBody(api, 'Gateway Timeout', 'Gateway Timeout error') });
      case 'slow':
      case 'page-cap':
      case 'ignore-offset':
        return undefined; // answered later, or with the page cut wrongly (SimRequest.paging)
    }
  }

  /** How this request's answer is encoded (settings.contentEncoding), read per request so tests can change it. */
  function encoding(req: SimExchange): Encoder {
    const accept = req.headers['accept-encoding'];
    return (text) => encodeAnswer(text, settings.contentEncoding, Array.isArray(accept) ? accept.join(', ') : accept);
  }

  const sim: SimulatorCore = {
    url,
    token,
    accounts: world.accounts.map((a) => a.name),
    streams: world.accounts.flatMap((a) =>
      a.streams.filter((s) => s.dvr).map((s) => ({ account: a.name, stream: s.name })),
    ),
    world,
    clock,
    settings,
    faults,
    quota,
    stats,
    addToken: (t, grant) => void tokens.set(t, grant),
    get logins() {
      return loginService?.answered ?? 0;
    },
    loginService,
    expireLoginTokens: () => {
      loginService?.forget();
      for (const grant of tokens.values())
        if (grant.expiresAt !== undefined) grant.expiresAt = Math.min(grant.expiresAt, clock.now());
    },
    revokeLoginTokens: () => {
      loginService?.forget();
      revokeLoginTokens();
    },
    answer: (req) =>
      handle(req).catch((err: unknown) =>
        send({ status: 500, body: { status: 'Internal Server Error', description: String(err) } }),
      ),
  };
  return sim;
}

type Encoder = (text: string) => ReturnType<typeof encodeAnswer>;

function tooManyRequests(api: ApiName, retryAfterSec: number): SimReply {
  return {
    status: 429,
    body: errorBody(api, 'Too Many Requests', 'Too Many Requests'),
    headers: { 'retry-after': String(retryAfterSec) },
  };
}

/** A reply whose body is undefined has none (the login's refusals), as the real service sends them. */
function send(r: SimReply, encode?: Encoder): SimAnswer {
  if (r.body === undefined) return { status: r.status, headers: { 'content-length': '0', ...r.headers }, body: '' };
  const { body, header } = encode ? encode(JSON.stringify(r.body)) : { body: JSON.stringify(r.body) };
  const coding: Record<string, string> = header === undefined ? {} : { 'content-encoding': header };
  const headers = { 'content-type': 'application/json; charset=utf-8', ...coding, ...r.headers };
  return { status: r.status, headers, body };
}
