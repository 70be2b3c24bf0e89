/**
 * Every metric name of the metrics API (spec 001): `<side>_<part>` for both sides, plus the edge-only metrics.
 * The names double as InfluxDB field names, so each part is kept to [a-z0-9_].
 */
export const METRIC_SIDES = ['origin', 'edge'] as const;
export type MetricSide = (typeof METRIC_SIDES)[number];

export const STATUS_CODES = [
  200, 204, 206, 301, 302, 304, 400, 401, 403, 404, 416, 429, 500, 501, 502, 503, 504, 505,
] as const;
export type StatusCode = (typeof STATUS_CODES)[number];

export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

/**
 * Response size ranges of request_time. How they appear in field names is not shown in the spec; chosen:
 * `<side>_request_time_<range>` with the spec's labels lower-cased, and `4M+` spelled `4m_plus` because `+` is not a
 * safe character in a query parameter or a field name.
 */
export const SIZE_RANGES = [
  '0_250k',
  '250k_500k',
  '500k_750k',
  '750k_1m',
  '1m_2m',
  '2m_3m',
  '3m_4m',
  '4m_plus',
] as const;
export type SizeRange = (typeof SIZE_RANGES)[number];

export type StatusMetric = `${MetricSide}_status_${StatusCode}`;
export type StatusClassMetric = `${MetricSide}_status_${StatusClass}`;
export type RequestTimeMetric = `${MetricSide}_request_time_${SizeRange}`;
export type MetricName =
  | `${MetricSide}_bandwidth`
  | StatusMetric
  | StatusClassMetric
  | `${MetricSide}_requests_total`
  | RequestTimeMetric
  | 'edge_hit_ratio'
  | 'edge_hit_bytes';

export const statusMetric = (side: MetricSide, code: StatusCode): StatusMetric => `${side}_status_${code}`;
export const statusClassMetric = (side: MetricSide, cls: StatusClass): StatusClassMetric => `${side}_status_${cls}`;
export const requestTimeMetric = (side: MetricSide, range: SizeRange): RequestTimeMetric =>
  `${side}_request_time_${range}`;
export const bandwidthMetric = (side: MetricSide) => `${side}_bandwidth` as const;
export const requestsTotalMetric = (side: MetricSide) => `${side}_requests_total` as const;

/** `404` → `4xx`. Every listed code belongs to one of the four classes. */
export function statusClassOf(code: StatusCode): StatusClass {
  return `${Math.floor(code / 100)}xx` as StatusClass;
}

function sideMetrics(side: MetricSide): MetricName[] {
  return [
    bandwidthMetric(side),
    ...STATUS_CODES.map((code) => statusMetric(side, code)),
    ...STATUS_CLASSES.map((cls) => statusClassMetric(side, cls)),
    requestsTotalMetric(side),
    ...SIZE_RANGES.map((range) => requestTimeMetric(side, range)),
  ];
}

/** All metric names in a stable order: origin, then edge, then the edge-only ones. */
export const METRIC_NAMES: readonly MetricName[] = Object.freeze([
  ...METRIC_SIDES.flatMap(sideMetrics),
  'edge_hit_ratio',
  'edge_hit_bytes',
]);

const KNOWN: ReadonlySet<string> = new Set(METRIC_NAMES);

export function isMetricName(name: string): name is MetricName {
  return KNOWN.has(name);
}

/** What a metric measures; it decides the field type and how the simulator aggregates it. */
export type MetricKind = 'count' | 'bandwidth' | 'hit_ratio' | 'hit_bytes' | 'request_time';

export function metricKind(name: MetricName): MetricKind {
  if (name === 'edge_hit_ratio') return 'hit_ratio';
  if (name === 'edge_hit_bytes') return 'hit_bytes';
  if (name.endsWith('_bandwidth')) return 'bandwidth';
  if (name.includes('_request_time_')) return 'request_time';
  return 'count';
}

/** Counts and byte totals are integers (spec: "counts are integers"); rates, ratios and medians are floats. */
export function metricFieldType(name: MetricName): 'integer' | 'float' {
  const kind = metricKind(name);
  return kind === 'count' || kind === 'hit_bytes' ? 'integer' : 'float';
}
