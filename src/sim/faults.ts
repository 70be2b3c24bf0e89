import { API_NAMES, isApiName, perApi, type ApiName } from '../spec/apis.js';
import { sequence } from './model/rng.js';

/** Faults of one response; a plan without `kinds` draws from these. */
export const FAULT_KINDS = ['429', '500', '504', 'reset', 'slow', 'malformed'] as const;
/**
 * Paging faults: the request is answered, but `page-cap` serves at most `pageCap` rows per page (per bucket) whatever
 * the limit, and `ignore-offset` serves every page from the first row (see paging.ts). Only drawn when named.
 */
export const PAGING_FAULT_KINDS = ['page-cap', 'ignore-offset'] as const;
/** Every kind `--fault` and `PUT /_sim/faults/<api>` accept. */
export const ALL_FAULT_KINDS = [...FAULT_KINDS, ...PAGING_FAULT_KINDS] as const;
export type FaultKind = (typeof ALL_FAULT_KINDS)[number];

export function isFaultKind(text: string): text is FaultKind {
  return (ALL_FAULT_KINDS as readonly string[]).includes(text);
}

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
  /** Rows per page (per bucket) a `page-cap` fault serves; default 2. */
  pageCap?: number;
  /** Only requests for these accounts (the `account` query parameter) fail; the others are served. Default: all. */
  accounts?: string[];
}

export class FaultInjector {
  private readonly plans = new Map<ApiName, FaultPlan>();
  private readonly random: () => number;
  readonly injected: Record<ApiName, Partial<Record<FaultKind, number>>> = perApi(() => ({}));

  constructor(seed: number) {
    this.random = sequence(seed ^ 0x5eed);
  }

  set(api: ApiName, plan: FaultPlan | undefined): void {
    if (!plan) this.plans.delete(api);
    else
      this.plans.set(api, {
        ...plan,
        script: plan.script && [...plan.script],
        accounts: plan.accounts && [...plan.accounts],
      });
  }

  get(api: ApiName): FaultPlan | undefined {
    return this.plans.get(api);
  }

  /** The fault for the next request of `api` (for `account`, when it names one), if any. */
  next(api: ApiName, account?: string): FaultKind | undefined {
    const plan = this.plans.get(api);
    if (!plan) return undefined;
    if (plan.accounts && !(account !== undefined && plan.accounts.includes(account))) return undefined;
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
  const m = /^([a-z0-9-]+)=([a-z0-9,-]+)(?::([0-9.]+))?$/.exec(text.trim());
  if (!m || !(m[1] === 'all' || isApiName(m[1]!)))
    throw new Error(`--fault: expected api=kind[,kind]:rate (e.g. statistic=500:0.2), got "${text}"`);
  const kinds = m[2]!.split(',');
  for (const k of kinds) {
    if (!isFaultKind(k)) {
      throw new Error(`--fault: unknown fault kind "${k}" (one of ${ALL_FAULT_KINDS.join(', ')})`);
    }
  }
  const rate = m[3] === undefined ? 1 : Number(m[3]);
  if (!(rate >= 0 && rate <= 1)) throw new Error(`--fault: rate must be between 0 and 1, got "${m[3]}"`);
  const apis: ApiName[] = m[1] === 'all' ? [...API_NAMES] : [m[1] as ApiName];
  return { apis, plan: { rate, kinds: kinds as FaultKind[] } };
}
