import { systemClock, type Clock } from '../clock.js';
import type { Point } from '../points.js';
import type { FailureKind } from './outcome.js';
import type { CallEffect, FailingLimits, FailingSince } from './failing.js';
import { DEFAULT_FAILING_LIMITS, FailureTracker, failingConditions, failingRuns } from './failing.js';
import { isQuotaWait, isServed } from './failing.js';
import { METRIC_PREFIX, METRICS, type MetricKind, type Sample } from './metrics.js';
import { collectorRegistry } from './prometheus.js';
import type { Registry } from 'prom-client';
import type { CheckpointView, JobReading, JobsView } from '../contracts/job-view.js';

export type { CheckpointView } from '../contracts/job-view.js';

export interface TelemetryOptions {
  clock?: Clock;
  /** Tag of every cdn_collector point: counters of several instances in one database must not overwrite each other. */
  instance?: string;
  checkpoints?: CheckpointView;
  /** When failing APIs and a failing sink turn /healthz 503 (`http.apiFailingAfter`, `http.sinkFailingAfter`). */
  failing?: Partial<FailingLimits>;
}

/**
 * The collector's own counters and gauges. Created once per process and injected (no global registry), so tests and
 * several collectors in one process never share numbers. Recording is a map update: cheap on the hot path.
 */
export class Telemetry {
  /** The collector's metrics for /metrics (prom-client), read from this object when scraped. */
  readonly registry: Registry = collectorRegistry((kind) => this.samplesOf(kind));
  /** Counter series by metric, then by series key. */
  private readonly counters = new Map<MetricKind, Map<string, Sample>>();
  private readonly demands = new Map<string, number>();
  private readonly conditions = new Map<string, string>();
  /** Where the jobs' facts are read when asked (the collector's job state): telemetry keeps no copy of them. */
  private jobsView: JobsView | undefined;
  /** While a scrape or a batch of points is made: the one instant its metrics read, and the jobs' facts as of then. */
  private reading: { at: number; jobs?: readonly JobReading[] } | undefined;
  /** The last reconciliation: drift per measurement, field and account, and when it ran (epoch ms). */
  private verification: { drift: Sample[]; at: number } | undefined;
  private readonly clock: Clock;
  private readonly instance: string | undefined;
  private checkpoints: CheckpointView | undefined;
  private readonly apiFailures = new FailureTracker();
  private readonly sinkFailures = new FailureTracker();
  private failingLimits: FailingLimits;

  constructor(opts: TelemetryOptions = {}) {
    this.clock = opts.clock ?? systemClock;
    this.failingLimits = { ...DEFAULT_FAILING_LIMITS, ...opts.failing };
    this.instance = opts.instance;
    this.checkpoints = opts.checkpoints;
  }

  /** Reads checkpoint ages from `view` from now on (the store is usually opened after telemetry exists). */
  watchCheckpoints(view: CheckpointView): void {
    this.checkpoints = view;
  }

  /** The time on telemetry's clock: a report that reads several records reads them all as of one instant. */
  now(): number {
    return this.clock.now();
  }

  /** Reads the jobs' facts from `view` from now on (the collector is created after telemetry). */
  watchJobs(view: JobsView): void {
    this.jobsView = view;
  }

  /** Every job's facts as of `now` (sorted by key): what /metrics, /healthz and the points show. */
  jobsAt(now = this.clock.now()): readonly JobReading[] {
    const reading = this.reading;
    if (reading?.at === now) return (reading.jobs ??= this.jobsView?.snapshot(now).jobs ?? []);
    return this.jobsView?.snapshot(now).jobs ?? [];
  }

  /** Runs `read` (to its promise's end) with every metric reading one snapshot of the jobs' facts as of `at`. */
  private readingAt<T>(at: number, read: () => T): T {
    const reading = { at };
    this.reading = reading;
    const done = () => {
      if (this.reading === reading) this.reading = undefined;
    };
    let result: T;
    try {
      result = read();
    } catch (err) {
      done();
      throw err;
    }
    if (result instanceof Promise) return result.finally(done) as T;
    done();
    return result;
  }

  /** Changes when failures become unhealthy (e.g. once the runtime knows whether its token can be renewed). */
  setFailingLimits(limits: Partial<FailingLimits>): void {
    this.failingLimits = { ...this.failingLimits, ...limits };
  }

  /**
   * One finished HTTP call (`outcome`: see callOutcome) and what it did to the API's run of failures, the one record
   * every reader reads (failing.ts): a served call ends it, a failed one counts in it, a 429 (throttled) neither.
   * `served` overrides what the outcome says (a refusal that proved the token alive: the API answers).
   */
  apiCall(api: string, outcome: number | FailureKind, served = isServed(outcome)): CallEffect {
    this.count('api_calls', { api, status: String(outcome) });
    if (isQuotaWait(outcome)) {
      this.count('api_throttled', { api });
      return { kind: 'wait' };
    }
    if (served) return { kind: 'served', ended: this.apiFailures.succeeded(api) };
    return { kind: 'failed', run: this.apiFailures.failed(api, this.clock.now(), outcome) };
  }

  /** When `api` began failing every call (429s are waits, not failures); undefined while it serves. */
  apiFailingSince(api: string): number | undefined {
    return this.apiFailures.get(api)?.since;
  }

  apiRetry(api: string): void {
    this.count('api_retries', { api });
  }

  pointsWritten(measurement: string, count: number): void {
    this.count('points_written', { measurement_name: measurement }, count);
  }

  deadLetters(count = 1): void {
    this.count('dead_letters', {}, count);
  }

  pointsRefused(cause: string, count: number): void {
    this.count('points_refused', { cause }, count);
  }

  /** Points the database refused for good so far (verdicts and summaries). */
  refusedPoints(): number {
    let total = 0;
    for (const s of this.counters.get('points_refused')?.values() ?? []) total += s.value;
    return total;
  }

  /**
   * A write failed (`reason` as the log words it: `HTTP 500`, `ECONNREFUSED`): counted, and the sink's run of failures
   * goes on (returned): the one record of the sink failing, which /healthz, /metrics and the log's lines read.
   */
  sinkWriteFailed(reason: string) {
    this.count('write_failures', {});
    return this.sinkFailures.failed('sink', this.clock.now(), reason);
  }

  /** The database answered a write (confirmed or refused its lines): the sink's run of failures ends (returned). */
  sinkWriteAnswered() {
    return this.sinkFailures.succeeded('sink');
  }

  /** Calls the configured work of `api` needs per quota period ÷ its quota (plan/capacity.ts). */
  quotaDemand(api: string, ratio: number): void {
    this.demands.set(api, ratio);
  }

  /**
   * A named condition that makes the process unhealthy until cleared (`reason` undefined): e.g. `state` while the
   * state directory cannot be written, `api:statistic` while an API fails every call. /healthz answers 503 with it.
   */
  condition(name: string, reason: string | undefined): void {
    if (reason === undefined) this.conditions.delete(name);
    else this.conditions.set(name, reason);
  }

  /**
   * The failing APIs' and the sink's runs that are /healthz conditions as of `now`, by condition name (`api:<name>`,
   * `sink`): what daemon-status.json carries for `status`.
   */
  failingRuns(now = this.clock.now()): Record<string, Readonly<FailingSince>> {
    return failingRuns(this.apiFailures, this.sinkFailures, this.failingLimits, now);
  }

  /** Current unhealthy conditions, by name: those set with `condition`, and failing APIs and sink as of `now`. */
  activeConditions(now = this.clock.now()): Record<string, string> {
    const failing = failingConditions(this.apiFailures, this.sinkFailures, this.failingLimits, now);
    const jobs = this.jobsView?.conditions() ?? {};
    const all = [...this.conditions, ...Object.entries(jobs), ...Object.entries(failing)];
    return Object.fromEntries(all.sort(([a], [b]) => a.localeCompare(b)));
  }

  /** Points confirmed by the sink so far, per measurement (summaries). */
  pointsByMeasurement(): Record<string, number> {
    const totals: Record<string, number> = {};
    for (const s of this.counters.get('points_written')?.values() ?? []) totals[s.labels.measurement_name!] = s.value;
    return totals;
  }

  /**
   * The result of a reconciliation (verify): `series` are every compared measurement, field and account with the
   * summed difference of their drifting windows (0 when they matched). Replaces the previous run's.
   */
  verified(
    series: ReadonlyArray<{ measurement: string; field: string; account: string; drift: number }>,
    at = this.clock.now(),
  ): void {
    const drift = series.map(({ measurement, field, account, drift: value }) => ({
      kind: 'verify_drift' as const,
      labels: { measurement_name: measurement, field_key: field, account },
      value,
    }));
    this.verification = { drift, at };
  }

  /** Every series with its current value, sorted by metric then labels. */
  samples(now = this.clock.now()): Sample[] {
    return this.readingAt(now, () =>
      (Object.keys(METRICS) as MetricKind[]).flatMap((kind) => this.samplesOf(kind, now)),
    );
  }

  /** The series of one metric with their current values, sorted by labels. */
  samplesOf(kind: MetricKind, now = this.reading?.at ?? this.clock.now()): Sample[] {
    // Keyed once per sample, not per comparison: thousands of series with hundreds of jobs, every minute and scrape.
    const keyed = this.unsortedSamplesOf(kind, now).map((sample) => ({ sample, key: seriesKey(sample) }));
    keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return keyed.map((k) => k.sample);
  }

  private unsortedSamplesOf(kind: MetricKind, now: number): Sample[] {
    switch (kind) {
      case 'job_lag':
        return this.jobsAt(now).map((j) => ({ kind, labels: { job: j.key }, value: j.lagMs / 1000 }));
      case 'job_overdue':
        return this.jobsAt(now).map((j) => {
          return { kind, labels: { job: j.key }, value: Math.max(0, j.lagMs - j.builtInLagMs) / 1000 };
        });
      case 'job_backlog':
        return this.jobsAt(now).map((j) => ({ kind, labels: { job: j.key }, value: j.backlog }));
      case 'job_failures':
        return this.jobsAt(now)
          .filter((j) => j.failures > 0)
          .map((j) => ({ kind, labels: { job: j.key }, value: j.failures }));
      case 'quota_demand':
        return [...this.demands].map(([api, ratio]) => ({ kind, labels: { api }, value: ratio }));
      case 'spans_set_aside':
        return this.jobsAt(now)
          .filter((j) => j.setAside > 0)
          .map((j) => ({ kind, labels: { job: j.key }, value: j.setAside }));
      case 'unhealthy':
        return Object.keys(this.activeConditions(now)).map((name) => ({ kind, labels: { condition: name }, value: 1 }));
      case 'checkpoint_age':
        return (this.checkpoints?.keys() ?? []).flatMap((job) => {
          const at = this.checkpoints?.lastConfirmedAt(job);
          return at === undefined ? [] : [{ kind, labels: { job }, value: Math.max(0, now - at) / 1000 }];
        });
      case 'verify_drift':
        return (this.verification?.drift ?? []).map((d) => ({ ...d, labels: { ...d.labels } }));
      case 'verify_last_run':
        return this.verification ? [{ kind, labels: {}, value: this.verification.at / 1000 }] : [];
      default: {
        const counted = [...(this.counters.get(kind)?.values() ?? [])].map((s) => ({ ...s, labels: { ...s.labels } }));
        // Label-less counters exist from the start: a rate over them needs the 0 before the first event.
        if (counted.length === 0 && METRICS[kind].labels.length === 0) return [{ kind, labels: {}, value: 0 }];
        return counted;
      }
    }
  }

  /** InfluxDB points of measurement `cdn_collector`, stamped `now` (see measurements.ts for the shape). */
  toPoints(now = this.clock.now()): Point[] {
    return this.samples(now).map((s) => {
      const def = METRICS[s.kind];
      const value = def.fieldType === 'integer' ? Math.round(s.value) : s.value;
      const tags = { kind: s.kind, ...s.labels, ...(this.instance ? { instance: this.instance } : {}) };
      return { measurement: METRIC_PREFIX, tags, fields: { [def.field]: value }, time: now };
    });
  }

  /** Prometheus text exposition format (version 0.0.4), as /metrics serves it (without the process metrics). */
  prometheus(): Promise<string> {
    return this.readingAt(this.clock.now(), () => this.registry.metrics());
  }

  private count(kind: MetricKind, labels: Record<string, string>, by = 1): void {
    let series = this.counters.get(kind);
    if (!series) this.counters.set(kind, (series = new Map()));
    const key = seriesKey({ kind, labels });
    const sample = series.get(key);
    if (sample) sample.value += by;
    else series.set(key, { kind, labels, value: by });
  }
}

function seriesKey(s: Pick<Sample, 'kind' | 'labels'>): string {
  return JSON.stringify([
    s.kind,
    ...Object.keys(s.labels)
      .sort()
      .map((k) => [k, s.labels[k]]),
  ]);
}
