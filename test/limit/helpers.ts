import { ApiError } from '../../src/http/errors.js';
import type { ApiName } from '../../src/spec/apis.js';
import { Limiter, type LimiterOptions } from '../../src/limit/limiter.js';
import type { LimiterEvent, QuotaRule } from '../../src/limit/types.js';
import { sequence } from '../../src/sim/model/rng.js';
import { VirtualTime } from './virtual-time.js';

export function apiError(status: number, retryAfterSec?: number, api: ApiName = 'statistic'): ApiError {
  return new ApiError({
    status,
    body: { status: 'error', data: `HTTP ${status}` },
    request: { api, method: 'GET', url: 'http://sim.test/app/statistic/v3/' },
    retryAfterSec,
  });
}

/** A limiter on virtual time with deterministic jitter (random = 0.5) and small backoff; events are recorded. */
export function virtualLimiter(quota: QuotaRule | null, options: LimiterOptions = {}) {
  const vt = new VirtualTime();
  const events: LimiterEvent[] = [];
  const limiter = new Limiter('statistic', quota, {
    clock: vt,
    sleep: vt.sleep,
    random: () => 0.5,
    backoff: { baseMs: 100, capMs: 1000 },
    onEvent: (e) => events.push(e),
    ...options,
  });
  return { vt, limiter, events };
}

/**
 * A fake server on virtual time: a call travels `up` ms to the server (where it is counted: `arrivals`), then `down`
 * ms back. Latencies are drawn from a seeded sequence in [0, maxLatencyMs].
 */
export function fakeServer(vt: VirtualTime, seed: number, maxLatencyMs: number) {
  const random = sequence(seed);
  const arrivals: number[] = [];
  const send = async (): Promise<number> => {
    await vt.sleep(Math.floor(random() * maxLatencyMs));
    arrivals.push(vt.now());
    await vt.sleep(Math.floor(random() * maxLatencyMs));
    return 200;
  };
  return { arrivals, send };
}

/** A send that fails with the given errors in turn, then succeeds; records the time of each attempt. */
export function scriptedSend(vt: VirtualTime, failures: unknown[]) {
  const attempts: number[] = [];
  const send = async (): Promise<{ status: number }> => {
    attempts.push(vt.now());
    const failure = failures.shift();
    if (failure !== undefined) throw failure;
    return { status: 200 };
  };
  return { attempts, send };
}
