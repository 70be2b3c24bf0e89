import { APIS } from '../../spec/apis.js';
import { ALL_HOSTS, totalSeconds, type SecondsInterval } from '../../spec/dvr.js';
import { dvrModelFor, nowSeconds, type DvrNodeSnapshot } from '../model/dvr.js';
import { findAccount } from '../model/world.js';
import type { SimContext } from '../model/context.js';
import type { ApiRoute, SimReply, SimRequest } from './types.js';

/**
 * DVR management (spec 000): `GET|DELETE /app/dvr-net/v1/<account>/streams/<stream>`. Chosen where the spec is silent:
 * unknown account, unknown stream or a stream without DVR → 404 Not Found; a missing or invalid body field or an
 * unknown host → 400 Bad Request naming the field; other methods → 405 with Allow; `all: true` together with range
 * fields → 400 (ambiguous); both duration_sec and to_ts → to_ts wins when they disagree.
 */
export const dvrRoute: ApiRoute = {
  api: 'dvr',
  prefix: APIS.dvr.prefix,
  handle: (req, ctx) => {
    const target = resolveStream(req, ctx);
    if ('status' in target) return target;
    if (req.method === 'GET') return getStream(target, ctx);
    if (req.method === 'DELETE') return deleteFromStream(target, req.body, ctx);
    return {
      ...error(405, 'Method Not Allowed', `method ${req.method} is not supported`),
      headers: { allow: 'GET, DELETE' },
    };
  },
};

interface StreamTarget {
  account: string;
  stream: string;
}

type Deletion = { kind: 'all' } | { kind: 'range'; cut: SecondsInterval };

interface DeleteRequest {
  host: string;
  deletion: Deletion;
  /** The body fields that were sent, echoed on success. */
  echo: Record<string, unknown>;
}

const ECHOED_FIELDS = ['host', 'from_ts', 'duration_sec', 'to_ts', 'all'] as const;

/** `/<account>/streams/<stream…>`: the stream keeps its `/`; each segment is decoded (so `%2F` works as well). */
function resolveStream(req: SimRequest, ctx: SimContext): StreamTarget | SimReply {
  const m = /^\/([^/]+)\/streams\/(.+)$/.exec(req.path);
  if (!m) return error(404, 'Not Found', 'expected /<account_name>/streams/<stream_name>');
  const account = decode(m[1]!);
  const segments = m[2]!.split('/').map(decode);
  if (account === undefined || segments.includes(undefined))
    return error(404, 'Not Found', 'malformed percent-encoding');
  const stream = segments.join('/');
  const known = findAccount(ctx.world, account);
  if (!known) return error(404, 'Not Found', `account ${account} not found`);
  if (!req.accounts.includes(account)) return error(403, 'Forbidden', `no access to account ${account}`);
  if (!known.streams.some((s) => s.name === stream && s.dvr))
    return error(404, 'Not Found', `stream ${stream} has no DVR`);
  return { account, stream };
}

function getStream(target: StreamTarget, ctx: SimContext): SimReply {
  const now = nowSeconds(ctx);
  const nodes = dvrModelFor(ctx).snapshot(target.account, target.stream, now, ctx.settings.dvrWindowSec);
  return {
    status: 200,
    body: { status: 'Completed', stream_name: target.stream, data: nodes.map((n) => toRecord(target.stream, n)) },
  };
}

function toRecord(stream: string, n: DvrNodeSnapshot): unknown {
  return {
    stream_name: stream,
    host: n.node,
    is_alive: n.alive,
    dvr: {
      enabled: n.enabled,
      window: n.windowSec,
      duration: totalSeconds(n.ranges),
      // Nothing recorded: 0 (not shown; the zero value is what a typed backend most plausibly sends).
      from: n.ranges[0]?.from ?? 0,
      ranges: n.ranges.map((r) => ({ from: r.from, duration: r.to - r.from })),
    },
  };
}

function deleteFromStream(target: StreamTarget, body: unknown, ctx: SimContext): SimReply {
  const parsed = parseDeleteBody(body, ctx.world.nodes);
  if ('status' in parsed) return parsed;
  const model = dvrModelFor(ctx);
  const now = nowSeconds(ctx);
  const nodes = parsed.host === ALL_HOSTS ? ctx.world.nodes : [parsed.host];
  const failed: string[] = [];
  for (const node of nodes) {
    // A failing node keeps its recording; the others are still changed (the spec's partial failure).
    if (ctx.settings.failingDvrNodes.includes(node)) failed.push(node);
    else if (parsed.deletion.kind === 'all') model.deleteAll(target.account, target.stream, node, now);
    else model.deleteRange(target.account, target.stream, node, parsed.deletion.cut, now);
  }
  if (failed.length > 0) {
    return {
      status: 500,
      body: {
        status: 'Internal Server Error',
        description: `deletion failed on ${failed.length} of ${nodes.length} node(s)`,
        failed_hosts: failed,
      },
    };
  }
  return { status: 200, body: { status: 'Completed', stream_name: target.stream, ...parsed.echo } };
}

function parseDeleteBody(body: unknown, nodes: readonly string[]): DeleteRequest | SimReply {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return badRequest('body', 'a JSON object with host and from_ts/duration_sec/to_ts, or host and all, is required');
  }
  const b = body as Record<string, unknown>;
  const echo = Object.fromEntries(ECHOED_FIELDS.filter((f) => b[f] !== undefined).map((f) => [f, b[f]]));
  if (typeof b.host !== 'string' || b.host.length === 0) return badRequest('host', 'required, a non-empty string');
  if (b.host !== ALL_HOSTS && !nodes.includes(b.host)) return badRequest('host', `unknown host ${b.host}`);
  if (b.all !== undefined && typeof b.all !== 'boolean') return badRequest('all', 'must be a boolean');
  if (b.all === true) {
    const mixed = ['from_ts', 'duration_sec', 'to_ts'].find((f) => b[f] !== undefined);
    if (mixed) return badRequest(mixed, 'cannot be combined with all');
    return { host: b.host, deletion: { kind: 'all' }, echo };
  }
  const cut = parseCut(b);
  return 'status' in cut ? cut : { host: b.host, deletion: { kind: 'range', cut }, echo };
}

/** [from_ts, to_ts) or [from_ts, from_ts + duration_sec); to_ts wins when both are sent. */
function parseCut(b: Record<string, unknown>): SecondsInterval | SimReply {
  if (b.from_ts === undefined) return badRequest('from_ts', 'required');
  if (!isInteger(b.from_ts) || b.from_ts < 0) return badRequest('from_ts', 'must be an integer ≥ 0');
  const from = b.from_ts;
  if (b.duration_sec === undefined && b.to_ts === undefined)
    return badRequest('duration_sec', 'one of duration_sec or to_ts is required');
  if (b.duration_sec !== undefined && (!isInteger(b.duration_sec) || b.duration_sec <= 0)) {
    return badRequest('duration_sec', 'must be an integer > 0');
  }
  if (b.to_ts !== undefined && (!isInteger(b.to_ts) || b.to_ts <= from)) {
    return badRequest('to_ts', 'must be an integer greater than from_ts');
  }
  const to = isInteger(b.to_ts) ? b.to_ts : from + (b.duration_sec as number);
  return { from, to };
}

function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function badRequest(field: string, message: string): SimReply {
  return error(400, 'Bad Request', `${field}: ${message}`);
}

function error(status: number, name: string, description: string): SimReply {
  return { status, body: { status: name, description } };
}
