import { isMetricName, metricKind, type MetricName } from '../../spec/metrics.js';

/**
 * The one place that maps the API's metric names to the collector's field names. They are the same except where the
 * API's name hides what the value is: a bandwidth metric is the average over the window (statistic v3's bandwidth is
 * a peak), so `edge_bandwidth` is stored as `edge_bandwidth_avg`. Requests and the config's `metrics` list keep the
 * API's names.
 */
export function metricFieldName(name: MetricName): string {
  return metricKind(name) === 'bandwidth' ? `${name}_avg` : name;
}

/** The field name of a key of the API's answer, or undefined for a key that is not a known metric name. */
export function fieldOfApiKey(key: string): string | undefined {
  return isMetricName(key) ? metricFieldName(key) : undefined;
}
