import type { Runtime } from './runtime.js';

/**
 * Stops collecting, the one way every command stops (a signal, the end of the daemon): no new span starts; calls
 * queued for a quota slot or a retry are rejected — they would hold the stop for up to the limiter deadline (minutes,
 * e.g. while the API is down) and outlast a container's grace period — so their spans stay unconfirmed and are
 * collected by the next run. Requests already in flight finish and their spans are written and confirmed; a login in
 * flight is abandoned (the service may leave it hanging until its timeout).
 */
export async function stopCollecting(rt: Pick<Runtime, 'collector' | 'limiters' | 'tokens'>): Promise<void> {
  rt.tokens.stop?.();
  await Promise.all([rt.collector.stop(), rt.limiters.close()]);
}
