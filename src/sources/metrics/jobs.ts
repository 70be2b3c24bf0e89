import type { CollectorConfig } from '../../config/schema.js';
import { metricsRule } from '../../plan/windows.js';
import { MINUTE } from '../../time.js';
import type { CollectJob } from '../types.js';
import { MetricsClient, type MetricsQuery } from './client.js';
import { aggregateToPoints, byResourceToPoints } from './points.js';

/** Metrics: per account, the aggregate and (optionally) the by-resource breakdown; one call per 1–10 minute window. */
export function metricsJobs(config: CollectorConfig): CollectJob[] {
  const c = config.jobs.metrics;
  if (!c.enabled) return [];
  const rule = metricsRule(c.window / MINUTE, c.delay);
  const metrics = c.metrics.length > 0 ? c.metrics : undefined;
  return config.accounts.flatMap((account) => {
    const query = (span: { from: number; to: number }): MetricsQuery => ({ account, start: span.from, end: span.to, metrics });
    const jobs: CollectJob[] = [
      {
        key: `metrics/${account}`,
        api: 'metrics',
        rule,
        backfill: true,
        callsPerSpan: 1,
        collect: async (span, http) => aggregateToPoints(await new MetricsClient(http).aggregate(query(span)), span.from),
      },
    ];
    if (c.byResource) {
      jobs.push({
        key: `metrics_resource/${account}`,
        api: 'metrics',
        rule,
        backfill: true,
        callsPerSpan: 1,
        collect: async (span, http) => byResourceToPoints(await new MetricsClient(http).byResource(query(span)), span.from),
      });
    }
    return jobs;
  });
}
