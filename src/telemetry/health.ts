import type { Telemetry } from './telemetry.js';

export interface HealthThresholds {
  /** A job whose lag exceeds this is unhealthy. */
  maxLagMs: number;
  /** Per-job overrides (e.g. statistics are read an hour late by design). */
  jobMaxLagMs?: Record<string, number>;
}

export interface JobHealth {
  lagSeconds: number;
  maxLagSeconds: number;
  ok: boolean;
}

export interface HealthReport {
  status: 'ok' | 'lagging' | 'unhealthy';
  jobs: Record<string, JobHealth>;
  /** One sentence per lagging job or active condition (see Telemetry.condition); absent when everything is fine. */
  reasons?: Record<string, string>;
  /** Spans set aside for a permanent reason, per job: visible, but not a reason to restart the process. */
  setAside?: Record<string, number>;
}

/**
 * Healthy when every job that reported a lag is under its threshold and no condition is active (no jobs yet =
 * healthy: still starting). A condition (state not writable, an API failing) outranks lag: status `unhealthy`.
 */
export function evaluateHealth(telemetry: Telemetry, thresholds: HealthThresholds, now?: number): HealthReport {
  const jobs: Record<string, JobHealth> = {};
  const reasons: Record<string, string> = {};
  for (const job of telemetry.jobs()) {
    const lagMs = telemetry.lagMs(job, now) ?? 0;
    // The general limit counts from what could be collected by now; a per-job limit is taken as written.
    const maxLagMs = thresholds.jobMaxLagMs?.[job] ?? thresholds.maxLagMs + telemetry.builtInLagMs(job);
    const ok = lagMs <= maxLagMs;
    jobs[job] = { lagSeconds: lagMs / 1000, maxLagSeconds: maxLagMs / 1000, ok };
    if (!ok) reasons[job] = `lag ${formatSeconds(lagMs)} exceeds the limit of ${formatSeconds(maxLagMs)}`;
  }
  const conditions = telemetry.activeConditions(now);
  Object.assign(reasons, conditions);
  const setAside = telemetry.setAsideByJob();
  const extra = Object.keys(setAside).length > 0 ? { setAside } : {};
  if (Object.keys(reasons).length === 0) return { status: 'ok', jobs, ...extra };
  return { status: Object.keys(conditions).length > 0 ? 'unhealthy' : 'lagging', jobs, reasons, ...extra };
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}
