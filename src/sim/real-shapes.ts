import type { ApiName } from '../spec/apis.js';
import { hash32 } from './model/rng.js';
import type { World } from './model/world.js';
import type { SimReply } from './routes/types.js';

/**
 * `shapes: 'real'` (CLI `sim --real-shapes`): answers as public clients of the real service show it, where it differs
 * harmlessly from the specs' examples — the statistic total echoes its filters as text (`"code": "200"`)
 * and its times without a zone; stream views echo `fields` as comma text and `limit` as text; the metrics API sends a
 * numeric `status`; every success body carries a key the specs do not list; DVR node ids are opaque hex strings.
 * The data are the same as in the default ("seed") shapes, so the collector must write the same points.
 */
export function realShape(api: ApiName, reply: SimReply): SimReply {
  if (reply.status < 200 || reply.status > 299 || !isObject(reply.body)) return reply;
  const body: Record<string, unknown> = { ...reply.body, request_id: requestId(reply.body) };
  if (api === 'statistic' || api === 'streamstat') zoneLessTimes(body);
  if (api === 'statistic' && typeof body.code === 'number') body.code = String(body.code);
  if (api === 'streamstat') {
    if (Array.isArray(body.fields)) body.fields = body.fields.join(',');
    if (typeof body.limit === 'number') body.limit = String(body.limit);
  }
  if (api === 'metrics' && body.status === 'OK') body.status = 200;
  return { ...reply, body };
}

/** Node ids as the real DVR API shows them: 24 hex digits, derived from the seed (stable across runs). */
export function hexNodeIds(world: World): World {
  const nodes = world.nodes.map((name) =>
    [1, 2, 3].map((i) => hash32(world.seed, name, 'node-id', i).toString(16).padStart(8, '0')).join(''),
  );
  return { ...world, nodes };
}

/** `start`/`end` at any depth: `…:00Z` becomes `…:00` (UTC by the real service's convention); offsets stay. */
function zoneLessTimes(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) zoneLessTimes(item);
    return;
  }
  if (!isObject(node)) return;
  for (const key of Object.keys(node)) {
    const value = node[key];
    if ((key === 'start' || key === 'end') && typeof value === 'string' && value.endsWith('Z'))
      node[key] = value.slice(0, -1);
    else if (typeof value === 'object' && value !== null) {
      node[key] = Array.isArray(value) ? value.map((v: unknown) => (isObject(v) ? { ...v } : v)) : { ...value };
      zoneLessTimes(node[key]);
    }
  }
}

function requestId(body: object): string {
  return hash32(0, JSON.stringify(body).length, 'request').toString(16);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
