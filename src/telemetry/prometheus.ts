import { redactSecrets } from '../secrets.js';
import { METRICS, type Sample } from './metrics.js';

/** Content-Type of the text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Renders samples (grouped by metric) with one HELP and TYPE line per metric, including metrics with no series yet. */
export function renderPrometheus(samples: readonly Sample[]): string {
  const lines: string[] = [];
  for (const [kind, def] of Object.entries(METRICS)) {
    lines.push(`# HELP ${def.promName} ${escapeHelp(def.help)}`, `# TYPE ${def.promName} ${def.type}`);
    for (const sample of samples) {
      if (sample.kind === kind) lines.push(`${def.promName}${renderLabels(sample.labels)} ${renderValue(sample.value)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function renderLabels(labels: Record<string, string>): string {
  const pairs = Object.entries(labels).map(([key, value]) => `${key}="${escapeLabelValue(value)}"`);
  return pairs.length > 0 ? `{${pairs.join(',')}}` : '';
}

/**
 * Label values escape backslash, double quote and line feed (job keys carry user-chosen names), after secrets are
 * redacted (a token pasted into `accounts` would otherwise be a label).
 */
export function escapeLabelValue(value: string): string {
  return redactSecrets(value).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function renderValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}
