import { MINUTE } from '../../time.js';
import { unit } from './rng.js';
import type { SimResource, World } from './world.js';

/**
 * Edge and origin traffic of one resource in one minute: the single source of every traffic number the simulator
 * serves. The metrics API and traffic statistics both derive from it, so they agree with each other.
 */
export interface MinuteTraffic {
  /** Edge requests (hits). */
  requests: number;
  /** Bytes sent by the edge. */
  bytes: number;
  /** Of those, bytes served from cache. */
  cachedBytes: number;
  /** Requests the edge forwarded to the origin. */
  originRequests: number;
  /** Bytes the origin returned to the edge. */
  originBytes: number;
}

const ZERO: MinuteTraffic = { requests: 0, bytes: 0, cachedBytes: 0, originRequests: 0, originBytes: 0 };

/** Daily rhythm: quiet at 04:00 UTC, busiest at 16:00 UTC. */
function diurnal(minuteMs: number): number {
  const minuteOfDay = (minuteMs / MINUTE) % 1440;
  return 1 + 0.6 * Math.sin(((minuteOfDay - 600) / 1440) * 2 * Math.PI);
}

export function minuteTraffic(world: World, account: string, resource: SimResource, minuteMs: number): MinuteTraffic {
  const m = Math.floor(minuteMs / MINUTE);
  const seed = world.seed;
  const scale = 200 + Math.floor(unit(seed, account, resource.id, 'scale') * 1800);
  const noise = 0.8 + 0.4 * unit(seed, account, resource.id, m, 'n');
  const requests = Math.round(scale * diurnal(minuteMs) * noise);
  if (requests === 0) return ZERO;
  const perRequest = resource.service === 'media' ? 400_000 : 30_000;
  const bytes = Math.round(requests * perRequest * (0.7 + 0.6 * unit(seed, resource.id, m, 'b')));
  const hitShare = 0.75 + 0.23 * unit(seed, resource.id, m, 'h');
  const cachedBytes = Math.round(bytes * hitShare);
  const originRequests = Math.round(requests * (1 - hitShare) * (0.9 + 0.2 * unit(seed, resource.id, m, 'o')));
  const originBytes = bytes - cachedBytes;
  return { requests, bytes, cachedBytes, originRequests, originBytes };
}

export function addTraffic(a: MinuteTraffic, b: MinuteTraffic): MinuteTraffic {
  return {
    requests: a.requests + b.requests,
    bytes: a.bytes + b.bytes,
    cachedBytes: a.cachedBytes + b.cachedBytes,
    originRequests: a.originRequests + b.originRequests,
    originBytes: a.originBytes + b.originBytes,
  };
}

/**
 * Sum over [fromMs, toMs) minute by minute. `visible` scales each minute (late data: the statistics API serves a
 * growing fraction of a recent minute), applied per minute and floored so that sums stay integers.
 */
export function sumTraffic(
  world: World,
  account: string,
  resources: readonly SimResource[],
  fromMs: number,
  toMs: number,
  visible: (minuteMs: number) => number = () => 1,
): MinuteTraffic {
  let total = ZERO;
  for (let t = Math.ceil(fromMs / MINUTE) * MINUTE; t < toMs; t += MINUTE) {
    const f = visible(t);
    if (f <= 0) continue;
    for (const r of resources) {
      const mt = minuteTraffic(world, account, r, t);
      total = addTraffic(total, f >= 1 ? mt : scaleTraffic(mt, f));
    }
  }
  return total;
}

export function scaleTraffic(t: MinuteTraffic, f: number): MinuteTraffic {
  return {
    requests: Math.floor(t.requests * f),
    bytes: Math.floor(t.bytes * f),
    cachedBytes: Math.floor(t.cachedBytes * f),
    originRequests: Math.floor(t.originRequests * f),
    originBytes: Math.floor(t.originBytes * f),
  };
}
