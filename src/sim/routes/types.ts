import type { IncomingHttpHeaders } from 'node:http';
import type { ApiName } from '../../spec/apis.js';
import type { SimContext } from '../model/context.js';
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

export interface ApiRoute {
  api: ApiName;
  /** Path prefix, e.g. `/app/metrics/v1`. */
  prefix: string;
  handle(req: SimRequest, ctx: SimContext): SimReply | Promise<SimReply>;
}
