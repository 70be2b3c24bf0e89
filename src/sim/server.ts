import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
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

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent)
        send(res, { status: 500, body: { status: 'Internal Server Error', description: String(err) } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim');
    const rawBody = await readBody(req);
    if (url.pathname.startsWith('/_sim/')) {
      return send(res, handleControl(url.pathname, req.method ?? 'GET', rawBody, sim));
    }
    if (url.pathname === LOGIN_PATH && req.method === 'POST' && loginService) {
      const accounts = world.accounts.map((a) => a.name);
      const issue = (t: string, grant: Omit<TokenGrant, 'accounts'>) => {
        if (loginService.rotates) revokeLoginTokens();
        tokens.set(t, { ...grant, accounts });
      };
      return send(res, loginService.handle(rawBody, clock.now(), issue), encoding(req));
    }
    if (url.pathname.replace(/\/?$/, '/') === INVENTORY_ACCOUNTS_PATH && req.method === 'GET' && settings.inventory) {
      const grant = liveGrant(tokens, req.headers, clock.now());
      // The vendor's page: a refused token is answered 401 with no body.
      if (!grant) return send(res, { status: 401, body: undefined });
      return send(res, { status: 200, body: inventoryAccounts(grant.accounts) }, encoding(req));
    }
    const route = routes.find((r) => url.pathname === r.prefix || url.pathname.startsWith(`${r.prefix}/`));
    if (!route) return send(res, { status: 404, body: { status: 'Not Found', description: 'unknown path' } });
    const api = route.api;
    stats.request(api);

    const fault = faults.next(api, url.searchParams.get('account') ?? undefined);
    // A slow fault delays the answer, not the arrival: the quota counts the call now, as a real gateway would (a
    // client that gives up early must still see its call counted at arrival, never later).
    if (fault && fault !== 'slow' && (await applyFault(fault, api, req, res))) return;
    const paging =
      fault === 'page-cap'
        ? { cap: faults.get(api)?.pageCap ?? 2 }
        : fault === 'ignore-offset'
          ? { ignoreOffset: true }
          : undefined;

    const auth = authenticate(api, tokens, req.headers, url.searchParams, clock.now(), settings.metricsRefusal);
    if (!auth.ok) return reply(api, req, res, auth.reply);
    const retryAfter = quota.tryAdmit(api, auth.quotaKey, clock.now());
    if (retryAfter !== undefined) {
      stats.quotaRejected(api);
      return reply(api, req, res, tooManyRequests(api, retryAfter));
    }
    stats.admitted(api, clock.now());
    if (fault === 'slow') await applyFault(fault, api, req, res);

    let body: unknown;
    if (rawBody.length > 0) {
      try {
        body = JSON.parse(rawBody);
      } catch {
        return reply(api, req, res, {
          status: 400,
          body: { status: 'Bad Request', description: 'body is not valid JSON' },
        });
      }
    }
    const simReq: SimRequest = {
      method: req.method ?? 'GET',
      path: url.pathname.slice(route.prefix.length) || '/',
      query: url.searchParams,
      headers: req.headers,
      body,
      accounts: auth.accounts,
      ...(paging ? { paging } : {}),
    };
    const answer = await route.handle(simReq, ctx);
    reply(api, req, res, settings.shapes === 'real' ? realShape(api, answer) : answer);
  }

  /** Returns true when the fault already answered (or dropped) the request. */
  async function applyFault(
    kind: FaultKind,
    api: ApiName,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<boolean> {
    const plan = faults.get(api);
    switch (kind) {
      case 'slow':
        await new Promise((r) => setTimeout(r, plan?.slowMs ?? 3000));
        return false;
      case 'reset':
        req.socket.destroy();
        return true;
      case 'malformed':
        stats.status(api, 200);
        res.writeHead(200, { 'content-type': 'application/json' }).end(MALFORMED_BODY);
        return true;
      case '429':
        reply(api, req, res, tooManyRequests(api, plan?.retryAfterSec ?? 1));
        return true;
      case '500':
        reply(api, req, res, { status: 500, body: errorBody(api, 'Internal Server Error', 'Internal Server Error') });
        return true;
      case '504':
        reply(api, req, res, { status: 504, body: errorBody(api, 'Gateway Timeout', 'Gateway Timeout error') });
        return true;
      case 'page-cap':
      case 'ignore-offset':
        return false; // answered, with the page cut wrongly (SimRequest.paging)
    }
  }

  function reply(api: ApiName, req: IncomingMessage, res: ServerResponse, r: SimReply): void {
    stats.status(api, r.status);
    send(res, r, encoding(req));
  }

  /** How this request's answer is encoded (settings.contentEncoding), read per request so tests can change it. */
  function encoding(req: IncomingMessage): (text: string) => ReturnType<typeof encodeAnswer> {
    return (text) => encodeAnswer(text, settings.contentEncoding, req.headers['accept-encoding']);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  const sim: Simulator = {
    url: `http://${host}:${address.port}`,
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
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return sim;
}

function tooManyRequests(api: ApiName, retryAfterSec: number): SimReply {
  return {
    status: 429,
    body: errorBody(api, 'Too Many Requests', 'Too Many Requests'),
    headers: { 'retry-after': String(retryAfterSec) },
  };
}

/** A reply whose body is undefined has none (the login's refusals), as the real service sends them. */
function send(res: ServerResponse, r: SimReply, encode?: (text: string) => ReturnType<typeof encodeAnswer>): void {
  if (r.body === undefined) {
    res.writeHead(r.status, { 'content-length': '0', ...r.headers }).end();
    return;
  }
  const { body, header } = encode ? encode(JSON.stringify(r.body)) : { body: JSON.stringify(r.body) };
  const coding = header === undefined ? {} : { 'content-encoding': header };
  res.writeHead(r.status, { 'content-type': 'application/json; charset=utf-8', ...coding, ...r.headers });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 1_000_000) break;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
