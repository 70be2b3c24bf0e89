import type { ApiName } from '../http/errors.js';
import { sequence } from './model/rng.js';

export const FAULT_KINDS = ['429', '500', '504', 'reset', 'slow', 'malformed'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * Faults of one API: a `script` is consumed first, one entry per request (`ok` lets a request through), then each
 * request fails with probability `rate`, with a kind drawn from `kinds`.
 */
export interface FaultPlan {
  rate?: number;
  kinds?: FaultKind[];
  script?: Array<FaultKind | 'ok'>;
  /** Delay of a `slow` response. */
  slowMs?: number;
  /** Retry-After seconds sent with an injected 429. */
  retryAfterSec?: number;
}

export class FaultInjector {
  private readonly plans = new Map<ApiName, FaultPlan>();
  private readonly random: () => number;
  readonly injected: Record<ApiName, Partial<Record<FaultKind, number>>> = {
    metrics: {},
    statistic: {},
    streamstat: {},
    dvr: {},
  };

  constructor(seed: number) {
    this.random = sequence(seed ^ 0x5eed);
  }

  set(api: ApiName, plan: FaultPlan | undefined): void {
    if (plan) this.plans.set(api, { ...plan, script: plan.script ? [...plan.script] : undefined });
    else this.plans.delete(api);
  }

  get(api: ApiName): FaultPlan | undefined {
    return this.plans.get(api);
  }

  /** The fault for the next request of `api`, if any. */
  next(api: ApiName): FaultKind | undefined {
    const plan = this.plans.get(api);
    if (!plan) return undefined;
    let kind: FaultKind | undefined;
    if (plan.script && plan.script.length > 0) {
      const step = plan.script.shift()!;
      kind = step === 'ok' ? undefined : step;
    } else if (plan.rate && this.random() < plan.rate) {
      const kinds = plan.kinds && plan.kinds.length > 0 ? plan.kinds : [...FAULT_KINDS];
      kind = kinds[Math.floor(this.random() * kinds.length)];
    }
    if (kind) this.injected[api][kind] = (this.injected[api][kind] ?? 0) + 1;
    return kind;
  }
}

/** Parses `api=kind[,kind…][:rate]`, e.g. `statistic=500,504:0.2` or `all=429:0.1` (CLI `--fault`). */
export function parseFaultFlag(text: string): { apis: ApiName[]; plan: FaultPlan } {
  const m = /^(metrics|statistic|streamstat|dvr|all)=([a-z0-9,]+)(?::([0-9.]+))?$/.exec(text.trim());
  if (!m) throw new Error(`--fault: expected api=kind[,kind]:rate (e.g. statistic=500:0.2), got "${text}"`);
  const kinds = m[2]!.split(',');
  for (const k of kinds) {
    if (!(FAULT_KINDS as readonly string[]).includes(k)) {
      throw new Error(`--fault: unknown fault kind "${k}" (one of ${FAULT_KINDS.join(', ')})`);
    }
  }
  const rate = m[3] === undefined ? 1 : Number(m[3]);
  if (!(rate >= 0 && rate <= 1)) throw new Error(`--fault: rate must be between 0 and 1, got "${m[3]}"`);
  const apis: ApiName[] = m[1] === 'all' ? ['metrics', 'statistic', 'streamstat', 'dvr'] : [m[1] as ApiName];
  return { apis, plan: { rate, kinds: kinds as FaultKind[] } };
}
