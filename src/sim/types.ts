import type { IncomingHttpHeaders } from 'node:http';
import type { Clock } from '../clock.js';
import type { ApiName } from '../spec/apis.js';
import type { World } from './model/world.js';
import type { PagingFault } from './paging.js';

/** A parsed request as a route module sees it, after faults, authentication and quota have passed. */
export interface SimRequest {
  method: string;
  /** Path below the API's prefix, still URL-encoded (DVR stream names may contain an encoded or plain `/`). */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or undefined when there was none. */
  body: unknown;
  /** Accounts the caller's token may read. */
  accounts: readonly string[];
  /** An injected paging fault (`page-cap`, `ignore-offset`) for this request. */
  paging?: PagingFault;
}

export interface SimReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface SimContext {
  world: World;
  clock: Clock;
  settings: SimSettings;
}

/** Behaviour the specs leave open ("not shown"); each choice is documented where it is made and can be changed. */
export interface SimSettings {
  /** Statistics data lag: values of a minute keep growing until this long after it ends. Spec: up to one hour. */
  statisticLagMs: number;
  /** Stream view statistics lag (not shown in the spec; chosen: 5 minutes). */
  streamstatLagMs: number;
  /** Default and maximum `limit` of the grouping endpoints (not shown; chosen 100 and 1000). */
  defaultLimit: number;
  maxLimit: number;
  /** DVR nodes on which deletions fail (HTTP 500 with failed_hosts). */
  failingDvrNodes: string[];
  /** DVR depth (dvr.window) in seconds; unit not shown, chosen: seconds. */
  dvrWindowSec: number;
  /** `seed`: the shapes of the specs' examples; `real`: as the real service answers (see real-shapes.ts). */
  shapes: 'seed' | 'real';
  /**
   * Stream views with `granularity`: `buckets` (default; the shape is not shown, chosen like statistic v3 /times) or
   * `flat`: `granularity` is checked but ignored, as public clients' flat grouped shape suggests.
   */
  streamstatShape: 'buckets' | 'flat';
  /** The description of every metrics 403 (the real text is not published; the spec's meaning column by default). */
  metricsRefusal: string;
  /**
   * Accounts the metrics API refuses to every token (403 with `metricsRefusal`, the one documented text) while the
   * inventory and the other APIs serve them: an account without access to that API.
   */
  metricsDeniedAccounts: string[];
  /** Whether `GET /app/inventory/v1/accounts/` exists (false: 404, as on a white label without it). */
  inventory: boolean;
  /**
   * Content-Encoding of the answers (content-encoding.ts): '' none (default), `auto` gzip when the request accepts it,
   * or codings applied in order whatever it asked (`gzip`, `deflate`, `br`, `gzip, br`; an unknown name is declared
   * over the plain body).
   */
  contentEncoding: string;
}

export interface ApiRoute {
  api: ApiName;
  /** Path prefix, e.g. `/app/metrics/v1`. */
  prefix: string;
  handle(req: SimRequest, ctx: SimContext): SimReply | Promise<SimReply>;
}
