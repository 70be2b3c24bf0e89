import type { Gate } from '../http/client.js';
import { API_NAMES, perApi, type ApiName } from '../spec/apis.js';
import { Limiter, type LimiterOptions } from './limiter.js';
import type { Priority, QuotaSet, RunOptions } from './types.js';

/**
 * One limiter per API for one token, shared by every job of the process. APIs missing from `quotas` or set to null
 * have no quota, but still get retries, priorities and graceful shutdown.
 */
export class LimiterSet {
  private readonly limiters: Record<ApiName, Limiter>;

  constructor(quotas: QuotaSet, options: LimiterOptions = {}) {
    this.limiters = perApi((api) => new Limiter(api, quotas[api] ?? null, options));
  }

  get(api: ApiName): Limiter {
    return this.limiters[api];
  }

  run<T>(api: ApiName, send: () => Promise<T>, options?: RunOptions): Promise<T> {
    return this.limiters[api].run(send, options);
  }

  /** A Gate for HttpClient: each call goes through its API's limiter at `priority`. */
  gate(priority: Priority = 'live', options: Omit<RunOptions, 'priority'> = {}): Gate {
    return (api, send) => this.limiters[api].run(send, { ...options, priority });
  }

  /** Stops accepting calls and waits until queued and in-flight calls have settled. */
  async drain(): Promise<void> {
    await Promise.all(API_NAMES.map((api) => this.limiters[api].drain()));
  }

  /** Stops accepting calls, rejects queued ones (LimiterClosedError) and waits for the calls in flight. */
  async close(): Promise<void> {
    await Promise.all(API_NAMES.map((api) => this.limiters[api].close()));
  }
}
