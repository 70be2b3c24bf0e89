import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { errorCodeOf } from '../../src/errors.js';
import { ApiError, BodyTooLargeError, NetworkError, ResponseFormatError, TimeoutError } from '../../src/http/errors.js';
import { SCHEMA } from '../../src/schema/schema.js';
import { METRICS } from '../../src/telemetry/metrics.js';
import { callOutcome } from '../../src/telemetry/outcome.js';
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { SetJobFacts } from '../helpers/job-facts.js';

const T0 = Date.UTC(2024, 0, 1);
const HOSTILE_JOB = 'statistic/a "quoted"\\back\nslash/countries';

function busyTelemetry(clock = new ManualClock(T0)) {
  const checkpoints = { keys: () => ['metrics/acme'], lastConfirmedAt: () => T0 - 90_000 };
  const t = new Telemetry({ clock, checkpoints });
  t.apiCall('metrics', 200);
  t.apiCall('metrics', 200);
  t.apiCall('statistic', 429);
  t.apiRetry('statistic');
  t.pointsWritten('cdn_traffic', 1200);
  t.pointsWritten('cdn_traffic', 34);
  t.deadLetters(2);
  t.sinkWriteFailed('ECONNREFUSED');
  const jobs = SetJobFacts.watchedBy(t, clock)
    .failed(HOSTILE_JOB)
    .lag('metrics/acme', 61_500)
    .backlog('metrics/acme', 17);
  return { t, clock, jobs };
}

describe('Telemetry.toPoints', () => {
  it('writes measurement cdn_collector with the field types of its schema and only known tags', () => {
    const { t } = busyTelemetry();
    const schema = SCHEMA.get('cdn_collector')!;
    const points = t.toPoints(T0);
    expect(points.length).toBeGreaterThan(8);
    for (const p of points) {
      expect(p.measurement).toBe('cdn_collector');
      expect(p.time).toBe(T0);
      for (const tag of Object.keys(p.tags)) expect(schema.tags).toHaveProperty(tag);
      const [[field, value]] = Object.entries(p.fields) as [[string, unknown]];
      const type = schema.fields[field]?.type;
      expect(type).toBe(METRICS[p.tags.kind as keyof typeof METRICS].fieldType);
      if (type === 'integer') expect(Number.isInteger(value)).toBe(true);
      else expect(typeof value).toBe('number');
    }
    const find = (kind: string, tags: Record<string, string> = {}) =>
      points.find((p) => p.tags.kind === kind && Object.entries(tags).every(([k, v]) => p.tags[k] === v))?.fields;
    expect(find('api_calls', { api: 'metrics', status: '200' })).toEqual({ total: 2 });
    // The status label of a failed call is what the limiter's reports give it (outcomeOf), tested where they are made.
    expect(find('api_throttled', { api: 'statistic' })).toEqual({ total: 1 });
    expect(find('points_written', { measurement_name: 'cdn_traffic' })).toEqual({ total: 1234 });
    expect(find('dead_letters')).toEqual({ total: 2 });
    expect(find('job_lag', { job: 'metrics/acme' })).toEqual({ lag_seconds: 61.5 });
    expect(find('job_backlog', { job: 'metrics/acme' })).toEqual({ windows: 17 });
    expect(find('checkpoint_age', { job: 'metrics/acme' })).toEqual({ age_seconds: 90 });
  });

  it('reports zero for label-less counters before anything happened, and keeps instances apart', () => {
    const fresh = new Telemetry({ clock: new ManualClock(T0) });
    busyTelemetry();
    expect(fresh.toPoints().map((p) => [p.tags.kind, p.fields])).toEqual([
      ['dead_letters', { total: 0 }],
      ['write_failures', { total: 0 }],
    ]);
  });

  it('sums points per measurement for summaries', () => {
    const { t } = busyTelemetry();
    t.pointsWritten('cdn_views', 5);
    expect(t.pointsByMeasurement()).toEqual({ cdn_traffic: 1234, cdn_views: 5 });
  });

  it('reads the lag as of the instant it is asked: it grows while the job makes no progress', () => {
    const { t, clock, jobs } = busyTelemetry();
    const lagMs = () => t.jobsAt().find((j) => j.key === 'metrics/acme')?.lagMs;
    clock.advance(30_000);
    expect(lagMs()).toBe(91_500);
    jobs.lag('metrics/acme', 5_000);
    expect(lagMs()).toBe(5_000);
  });
});

/** The series of one metric as its prom-client registry holds them when scraped. */
async function scraped(t: Telemetry, name: string) {
  const metric = t.registry.getSingleMetric(name);
  if (!metric) throw new Error(`${name} is not registered`);
  return (await metric.get()).values.map(({ labels, value }) => ({ labels, value }));
}

describe('Telemetry.registry (/metrics)', () => {
  it('registers every metric with its name, type and help, and reads the recorded values when scraped', async () => {
    const { t } = busyTelemetry();
    for (const def of Object.values(METRICS)) {
      const metric = await t.registry.getSingleMetric(def.promName)?.get();
      expect(metric, def.promName).toMatchObject({ name: def.promName, type: def.type, help: def.help });
      expect(def.promName).toMatch(/^cdn_collector_/);
    }
    const metricsOk = { api: 'metrics', status: '200' };
    expect(await scraped(t, 'cdn_collector_api_calls_total')).toContainEqual({ labels: metricsOk, value: 2 });
    expect(await scraped(t, 'cdn_collector_dead_letters_total')).toEqual([{ labels: {}, value: 2 }]);
    expect(await scraped(t, 'cdn_collector_verify_last_run_timestamp_seconds')).toEqual([]);
    t.apiCall('metrics', 200);
    expect(await scraped(t, 'cdn_collector_api_calls_total')).toContainEqual({ labels: metricsOk, value: 3 });
  });

  it('labels the collection job collector_job (`job` is the scrape target); the points keep `job`', async () => {
    const { t, clock } = busyTelemetry();
    clock.advance(30_000);
    const jobOnly = (job: string, value: number) => [{ labels: { collector_job: job }, value }];
    expect(await scraped(t, 'cdn_collector_job_failures_total')).toEqual(jobOnly(HOSTILE_JOB, 1));
    // Every job of the job state has its series: the failed one is not lagging and lacks no window.
    const lags = [...jobOnly('metrics/acme', 91.5), ...jobOnly(HOSTILE_JOB, 0)];
    expect(await scraped(t, 'cdn_collector_job_lag_seconds')).toEqual(lags);
    const backlogs = [...jobOnly('metrics/acme', 17), ...jobOnly(HOSTILE_JOB, 0)];
    expect(await scraped(t, 'cdn_collector_job_backlog_windows')).toEqual(backlogs);
    expect(await scraped(t, 'cdn_collector_checkpoint_age_seconds')).toEqual(jobOnly('metrics/acme', 120));
    expect(await t.prometheus()).not.toMatch(/[{,]job="/);
    expect(t.toPoints().find((p) => p.tags.kind === 'job_lag')?.tags).toEqual({ kind: 'job_lag', job: 'metrics/acme' });
  });

  it('keeps instances apart: a second Telemetry has its own registry', async () => {
    const { t } = busyTelemetry();
    const other = new Telemetry({ clock: new ManualClock(T0) });
    expect(other.registry).not.toBe(t.registry);
    expect(await scraped(other, 'cdn_collector_api_calls_total')).toEqual([]);
  });

  it('renders the text format with the labels escaped, every sample after its own TYPE line', async () => {
    const text = await busyTelemetry().t.prometheus();
    const escaped = 'statistic/a \\"quoted\\"\\\\back\\nslash/countries';
    expect(text).toContain(`cdn_collector_job_failures_total{collector_job="${escaped}"} 1\n`);
    let current = '';
    for (const line of text
      .trimEnd()
      .split('\n')
      .filter((l) => l !== '')) {
      if (line.startsWith('# TYPE ')) current = line.split(' ')[2]!;
      else if (!line.startsWith('#')) expect(line.startsWith(current)).toBe(true);
    }
  });
});

describe('callOutcome', () => {
  const request = { api: 'metrics' as const, method: 'GET', url: 'http://x/' };
  const outcome = (err: unknown, status?: number) => callOutcome(status, errorCodeOf(err));
  it('uses the HTTP status when the API answered, else the failure kind of the error code', () => {
    expect(outcome(new ApiError({ status: 503, body: {}, request }), 503)).toBe(503);
    expect(outcome(new TimeoutError(request, 1000))).toBe('timeout');
    expect(outcome(new NetworkError(request, 'ECONNRESET'))).toBe('network');
    expect(outcome(new ResponseFormatError(request, 'not JSON', '<html>', 'not-json'))).toBe('bad_response');
    expect(outcome(new BodyTooLargeError(request, 200, 1024, 4096, 0))).toBe('bad_response');
    expect(outcome(new Error('x'))).toBe('error');
  });
});

describe('instance tag', () => {
  it('tags every cdn_collector point with the instance, so shards in one database stay apart', async () => {
    const { Telemetry } = await import('../../src/telemetry/telemetry.js');
    const a = new Telemetry({ instance: 'shard-0' });
    a.apiCall('metrics', 200);
    expect(a.toPoints(0).every((p) => p.tags.instance === 'shard-0')).toBe(true);
    expect(new Telemetry().toPoints(0).some((p) => 'instance' in p.tags)).toBe(false);
  });
});
