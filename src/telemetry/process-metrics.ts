import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { VERSION } from '../version.js';
import { METRIC_PREFIX } from './metrics.js';

/**
 * The process and runtime metrics every Node exporter serves: prom-client's default metrics (`process_*`,
 * `nodejs_*`), under the names dashboards and alerts already know, plus the one it has no equal for, the collector's
 * version. Process-wide, so one registry per process (not prom-client's global one), made at the first use.
 */
let registry: Registry | undefined;

function processRegistry(): Registry {
  if (registry) return registry;
  registry = new Registry();
  // The event loop's delay sampled every 20 ms (prom-client's default is 10): enough for a daemon, and cheaper.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  new Gauge({
    name: `${METRIC_PREFIX}_build_info`,
    help: 'The collector version that runs (value 1)',
    labelNames: ['version'],
    registers: [registry],
  }).set({ version: VERSION }, 1);
  return registry;
}

/** Prometheus text of the process and runtime metrics; the event-loop figures cover the time since the last scrape. */
export function renderProcessMetrics(): Promise<string> {
  return processRegistry().metrics();
}

/** Starts measuring (the event loop, garbage collections) now, so the first scrape reports more than nothing. */
export function startProcessMetrics(): void {
  processRegistry();
}
