import { metricsRule } from '../../plan/windows.js';
import { MINUTE } from '../../time.js';
import type { Point } from '../../points.js';
import type { CollectJob, JobContext, Span } from '../common/types.js';
import { MetricsClient, type MetricsQuery } from './client.js';
import { aggregateToPoints, resourceToPoints } from './points.js';
import type { MetricsSettings } from './settings.js';
import { MetricsPeriodLimit } from './window-limit.js';

/**
 * Metrics: per account, the aggregate and (optionally) the by-resource breakdown; one call per 1–10 minute window.
 * Where the service refuses a window as too long and states its limit (422), every window is read in calls of that
 * limit from then on, a point each (MetricsPeriodLimit, learnt once for the runtime).
 */
export function metricsJobs(
  c: MetricsSettings,
  { accounts }: JobContext,
  metricsPeriod?: MetricsPeriodLimit,
): CollectJob[] {
  if (!c.enabled) return [];
  const rule = metricsRule(c.window / MINUTE, c.delay);
  const metrics = c.metrics.length > 0 ? c.metrics : undefined;
  const limit = metricsPeriod ?? new MetricsPeriodLimit();
  return accounts.flatMap((account) => {
    const query = (span: Span): MetricsQuery => ({ account, start: span.from, end: span.to, metrics });
    const job = (key: string, read: (span: Span, client: MetricsClient) => Promise<Point[]>): CollectJob => ({
      key: `${key}/${account}`,
      api: 'metrics',
      account,
      rule,
      checkpointed: true,
      callsFor: (span) => {
        const calls = limit.calls(span).length;
        return { least: calls, most: calls, paged: false };
      },
      collect: (span, http) => readWithin(limit, span, (part) => read(part, new MetricsClient(http))),
    });
    const aggregate = job('metrics', async (span, client) =>
      aggregateToPoints(await client.aggregate(query(span)), span.from),
    );
    if (!c.byResource) return [aggregate];
    // Read resource by resource: the answer grows with the account (about 1.7 KB a resource), its points far less.
    const byResource = job('metrics_resource', async (span, client) => {
      const points: Point[] = [];
      // The account is the requested one: the client checks the answer's echo of it once the body has ended.
      await client.byResourceEach(query(span), (element) =>
        points.push(...resourceToPoints(account, element, span.from)),
      );
      return points;
    });
    return [aggregate, byResource];
  });
}

/** `span` in calls of the longest period the service takes; a refusal stating a shorter one is learnt and obeyed. */
async function readWithin(
  limit: MetricsPeriodLimit,
  span: Span,
  read: (part: Span) => Promise<Point[]>,
): Promise<Point[]> {
  for (;;) {
    const points: Point[] = [];
    let part: Span | undefined;
    try {
      for (part of limit.calls(span)) points.push(...(await read(part)));
      return points;
    } catch (err) {
      if (!part || !limit.learnFrom(err, part.to - part.from)) throw err;
    }
  }
}
