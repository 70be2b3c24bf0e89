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
  status: 'ok' | 'lagging';
  jobs: Record<string, JobHealth>;
  /** One sentence per lagging job; absent when everything is fine. */
  reasons?: Record<string, string>;
}

/** Healthy when every job that reported a lag is under its threshold (no jobs yet = healthy: still starting). */
export function evaluateHealth(telemetry: Telemetry, thresholds: HealthThresholds, now?: number): HealthReport {
  const jobs: Record<string, JobHealth> = {};
  const reasons: Record<string, string> = {};
  for (const job of telemetry.jobs()) {
    const lagMs = telemetry.lagMs(job, now) ?? 0;
    const maxLagMs = thresholds.jobMaxLagMs?.[job] ?? thresholds.maxLagMs;
    const ok = lagMs <= maxLagMs;
    jobs[job] = { lagSeconds: lagMs / 1000, maxLagSeconds: maxLagMs / 1000, ok };
    if (!ok) reasons[job] = `lag ${formatSeconds(lagMs)} exceeds the limit of ${formatSeconds(maxLagMs)}`;
  }
  return Object.keys(reasons).length === 0 ? { status: 'ok', jobs } : { status: 'lagging', jobs, reasons };
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}
