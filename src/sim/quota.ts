import { perApi, type ApiName, type QuotaRule } from '../spec/apis.js';

export type { QuotaRule };

/** The descriptors' quotas (spec: statistics 5/min, stream views 30/min; metrics and DVR not shown, chosen). */
export const defaultQuotas: Readonly<Record<ApiName, QuotaRule | null>> = perApi((_, { quota }) => ({
  calls: quota.calls,
  periodMs: quota.periodMs,
}));

/** Every quota off: for tests that are about the data, not the limits. */
export const NO_QUOTAS: Readonly<Record<ApiName, null>> = perApi(() => null);

/** The default quotas' calls over a shorter period, so that days of history collect in seconds (demo, tests, bench). */
export function scaledQuotas(periodMs: number): Record<ApiName, QuotaRule> {
  return perApi((_, { quota }) => ({ calls: quota.calls, periodMs }));
}

/**
 * Exact sliding-window quota per API and token: a call is admitted only if fewer than `calls` admitted calls lie in
 * the `periodMs` before it. Rejected calls do not count (assumed: a 429 consumes no quota).
 */
export class SlidingQuota {
  private readonly admitted = new Map<string, number[]>();

  constructor(private readonly rules: Record<ApiName, QuotaRule | null>) {}

  rule(api: ApiName): QuotaRule | null {
    return this.rules[api];
  }

  setRule(api: ApiName, rule: QuotaRule | null): void {
    this.rules[api] = rule;
  }

  /** Admits the call (returns undefined) or returns the seconds until a slot frees up, for Retry-After. */
  tryAdmit(api: ApiName, token: string, now: number): number | undefined {
    const rule = this.rules[api];
    if (!rule) return undefined;
    const key = `${api}\u0000${token}`;
    const times = this.admitted.get(key) ?? [];
    while (times.length > 0 && times[0]! <= now - rule.periodMs) times.shift();
    if (times.length >= rule.calls) {
      const waitMs = times[0]! + rule.periodMs - now;
      return Math.max(1, Math.ceil(waitMs / 1000));
    }
    times.push(now);
    this.admitted.set(key, times);
    return undefined;
  }
}

/**
 * The simulator's quotas in the collector's config form (`{calls, period}`), so a collector pointed at it uses
 * exactly the server's limits (demo, tests). An API without a quota gets a limit too high to matter.
 */
export function configQuotasOf(quota: SlidingQuota): Record<ApiName, { calls: number; period: string }> {
  return perApi((api) => {
    const rule = quota.rule(api);
    return rule ? { calls: rule.calls, period: `${rule.periodMs}ms` } : { calls: 100_000, period: '1ms' };
  });
}
