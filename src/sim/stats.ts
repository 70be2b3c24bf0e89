import { API_NAMES, perApi, type ApiName } from '../spec/apis.js';

/** Admitted-call timestamps kept per API for quota verification; older ones are dropped to bound memory. */
const MAX_TIMES = 100_000;

export interface ApiStats {
  requests: number;
  byStatus: Record<string, number>;
  /** 429s the quota itself produced (injected 429s are counted under faults). */
  quotaRejections: number;
  /** Epoch ms of every call admitted by the quota, oldest first. */
  admittedAt: number[];
}

/** What the simulator saw, for tests and benchmarks: calls, statuses, quota rejections. */
export class SimStats {
  readonly apis: Record<ApiName, ApiStats> = perApi(emptyStats);

  request(api: ApiName): void {
    this.apis[api].requests++;
  }

  status(api: ApiName, status: number): void {
    const s = this.apis[api].byStatus;
    s[status] = (s[status] ?? 0) + 1;
  }

  admitted(api: ApiName, at: number): void {
    const times = this.apis[api].admittedAt;
    times.push(at);
    if (times.length > MAX_TIMES) times.splice(0, times.length - MAX_TIMES);
  }

  quotaRejected(api: ApiName): void {
    this.apis[api].quotaRejections++;
  }

  reset(): void {
    for (const a of API_NAMES) this.apis[a] = emptyStats();
  }
}

function emptyStats(): ApiStats {
  return { requests: 0, byStatus: {}, quotaRejections: 0, admittedAt: [] };
}

/** The largest number of timestamps inside any window of `periodMs` (a half-open window starting at a call). */
export function maxInSlidingWindow(times: readonly number[], periodMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi]! - sorted[lo]! >= periodMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}
