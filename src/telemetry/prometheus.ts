import { Counter, Gauge, Registry } from 'prom-client';
import { redactSecrets } from '../secrets.js';
import { METRICS, prometheusLabel, type MetricKind, type Sample } from './metrics.js';

/** Content-Type of the text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/**
 * A registry of its own (never prom-client's global one, so several collectors in one process and tests keep their
 * numbers apart) with one metric per METRICS entry. Each reads its series from `read` when scraped: telemetry keeps
 * the one record of the values, which its InfluxDB points read as well.
 */
export function collectorRegistry(read: (kind: MetricKind) => Sample[]): Registry {
  const registry = new Registry();
  for (const kind of Object.keys(METRICS) as MetricKind[]) {
    const def = METRICS[kind];
    const labelNames = def.labels.map(prometheusLabel);
    const config = { name: def.promName, help: def.help, labelNames, registers: [registry] };
    if (def.type === 'counter') {
      new Counter({
        ...config,
        collect() {
          this.reset();
          for (const sample of read(kind)) this.inc(prometheusLabels(sample.labels), sample.value);
        },
      });
    } else {
      new Gauge({
        ...config,
        collect() {
          this.reset();
          const samples = read(kind);
          // A label-less gauge without a value yet (no verify run) has no series, rather than a made-up 0.
          if (samples.length === 0 && def.labels.length === 0) this.remove({});
          for (const sample of samples) this.set(prometheusLabels(sample.labels), sample.value);
        },
      });
    }
  }
  return registry;
}

/** Labels under their Prometheus names; values redacted (a token pasted into `accounts` would otherwise be a label). */
function prometheusLabels(tags: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(tags).map(([tag, value]) => [prometheusLabel(tag), redactSecrets(value)]));
}
