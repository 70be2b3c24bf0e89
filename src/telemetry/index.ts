export { evaluateHealth, type HealthReport, type HealthThresholds, type JobHealth } from './health.js';
export { METRICS, METRIC_PREFIX, type MetricKind, type Sample } from './metrics.js';
export { callOutcome, type FailureKind } from './outcome.js';
export { PROMETHEUS_CONTENT_TYPE, renderPrometheus } from './prometheus.js';
export { startHealthServer, startTelemetryServer, type TelemetryServer, type TelemetryServerOptions } from './server.js';
export { Telemetry, type CheckpointView, type TelemetryOptions } from './telemetry.js';
