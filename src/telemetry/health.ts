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
 * Healthy when every job (as the job state says at `now`) is under its threshold and no condition is active (no jobs
 * yet = healthy: still starting). A condition (state not writable, an API failing) outranks lag: status `unhealthy`.
 */
export function evaluateHealth(
  telemetry: Telemetry,
  thresholds: HealthThresholds,
  now = telemetry.now(),
): HealthReport {
  const jobs: Record<string, JobHealth> = {};
  const reasons: Record<string, string> = {};
  const setAside: Record<string, number> = {};
  for (const { key, lagMs, builtInLagMs, setAside: spans } of telemetry.jobsAt(now)) {
    // The general limit counts from what could be collected by now; a per-job limit is taken as written.
    const maxLagMs = thresholds.jobMaxLagMs?.[key] ?? thresholds.maxLagMs + builtInLagMs;
    const ok = lagMs <= maxLagMs;
    jobs[key] = { lagSeconds: lagMs / 1000, maxLagSeconds: maxLagMs / 1000, ok };
    if (!ok) reasons[key] = `lag ${formatSeconds(lagMs)} exceeds the limit of ${formatSeconds(maxLagMs)}`;
    if (spans > 0) setAside[key] = spans;
  }
  const conditions = telemetry.activeConditions(now);
  Object.assign(reasons, conditions);
  const extra = Object.keys(setAside).length > 0 ? { setAside } : {};
  if (Object.keys(reasons).length === 0) return { status: 'ok', jobs, ...extra };
  return { status: Object.keys(conditions).length > 0 ? 'unhealthy' : 'lagging', jobs, reasons, ...extra };
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}
