import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/app/runtime.js';
import { startSimulator, type Simulator } from '../../src/sim/server.js';
import { METRICS, prometheusLabel } from '../../src/telemetry/metrics.js';
import { startTelemetryServer, type TelemetryServer } from '../../src/telemetry/server.js';
import { HOUR } from '../../src/time.js';
import { configFor, FAST_QUOTAS, runtimeFor } from '../helpers/collector.js';
import { SetJobFacts } from '../helpers/job-facts.js';
import {
  promtool,
  PROMTOOL_BIN,
  serverSkipReason,
  startVictoriaMetrics,
  VICTORIA_BIN,
  type VictoriaMetricsServer,
} from '../helpers/servers.js';
import { readPromQL } from './alerts-promql.js';

const RULES = 'config/prometheus/cdn-collector-rules.yaml';
interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const rules = (
  parseYaml(readFileSync(RULES, 'utf8')) as { groups: Array<{ name: string; rules: Rule[] }> }
).groups.flatMap((g) => g.rules);

/**
 * Labels Prometheus adds to every scraped series. A series' own label of the same name would be kept as
 * `exported_<name>` (honor_labels: false), which every query would then have to use.
 */
const TARGET_LABELS = ['job', 'instance'];
const scraped = (label: string) => (TARGET_LABELS.includes(label) ? `exported_${label}` : label);
/** Series Prometheus makes itself, not the collector. */
const BUILTIN: Record<string, string[]> = { up: TARGET_LABELS };

describe('PromQL reader (the rule test can fail)', () => {
  it('lists metrics, matcher labels and grouping labels', () => {
    expect(
      readPromQL('sum by (instance, api) (increase(cdn_collector_api_throttled_total{api=~"stat.*"}[15m])) > 0'),
    ).toEqual({
      selectors: [{ metric: 'cdn_collector_api_throttled_total', labels: ['api'] }],
      grouping: ['instance', 'api'],
      functions: ['sum', 'increase'],
    });
  });
  it('refuses what is no expression', () => {
    for (const bad of ['sum(x', 'rate(x[5m]', 'x > ', 'frobnicate(x)', 'x{a="b"', 'x{a=b}', '> 1', 'x y'])
      expect(() => readPromQL(bad), bad).toThrow();
  });
});

describe('Prometheus rules for /metrics', () => {
  it('are well-formed rules with an alert name, an expression, a severity and a summary', () => {
    expect(rules.length).toBeGreaterThanOrEqual(8);
    for (const r of rules) {
      expect(r.alert, JSON.stringify(r)).toMatch(/^[A-Za-z][A-Za-z0-9]*$/);
      expect(() => readPromQL(r.expr), r.alert).not.toThrow();
      expect(r.labels?.severity, r.alert).toMatch(/^(warning|critical)$/);
      expect(r.annotations?.summary, r.alert).toBeTruthy();
      if (r.for !== undefined) expect(r.for, r.alert).toMatch(/^\d+[smh]$/);
    }
  });

  it('the collector labels no series with a target label, and no shipped rule or dashboard reads `exported_*`', () => {
    for (const def of Object.values(METRICS)) {
      for (const label of def.labels.map(prometheusLabel)) expect(TARGET_LABELS, def.promName).not.toContain(label);
    }
    const shipped = ['config/prometheus', 'config/grafana'].flatMap((dir) =>
      readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((file) => /\.(ya?ml|json|mjs)$/.test(file))
        .map((file) => join(dir, file)),
    );
    expect(shipped).toContain(RULES);
    expect(shipped.filter((file) => /\bexported_\w+/.test(readFileSync(file, 'utf8')))).toEqual([]);
  });

  it.skipIf(serverSkipReason(PROMTOOL_BIN) !== undefined)('load in Prometheus (promtool check rules)', () => {
    expect(promtool(['check', 'rules', RULES])).toMatchObject({ code: 0, output: expect.stringContaining('SUCCESS') });
  });

  it('cover stale data, quota, auth, spans set aside, refused points and reconciliation drift', () => {
    const metrics = new Set(rules.flatMap((r) => readPromQL(r.expr).selectors.map((s) => s.metric)));
    for (const m of [
      'cdn_collector_job_overdue_seconds',
      'cdn_collector_api_throttled_total',
      'cdn_collector_unhealthy',
      'cdn_collector_spans_set_aside',
      'cdn_collector_points_refused_total',
      'cdn_collector_verify_drift',
    ]) {
      expect(metrics, m).toContain(m);
    }
  });
});

describe.skipIf(serverSkipReason(VICTORIA_BIN) !== undefined)(
  'Prometheus rules against a running collector and VictoriaMetrics',
  () => {
    let sim: Simulator;
    let rt: Runtime;
    let server: TelemetryServer;
    let vm: VictoriaMetricsServer;
    /** Scrape times (s), spaced as a scrape interval would be, ending now. */
    const t0 = Math.floor(Date.now() / 1000) - 20 * 60;

    beforeAll(async () => {
      [sim, vm] = await Promise.all([startSimulator({ quotas: FAST_QUOTAS }), startVictoriaMetrics()]);
      // Metrics and DVR only: a pass of the slow statistics is not needed to see the metric names and labels.
      const jobs = {
        statistic: { enabled: false },
        streamstat: { enabled: false },
        dvr: { streams: sim.streams.slice(0, 1) },
      };
      const out = join(mkdtempSync(join(tmpdir(), 'alerts-prom-')), 'points.lp');
      rt = await runtimeFor(configFor(sim, { type: 'file', path: out }, { accounts: sim.accounts.slice(0, 1), jobs }));
      const results = await rt.collector.tick();
      expect(results.filter((r) => r.error)).toEqual([]);
      server = await startTelemetryServer({ telemetry: rt.telemetry, port: 0, maxLagMs: 2 * HOUR });
    }, 120_000);

    afterAll(async () => {
      await server?.close();
      await rt?.close();
      await Promise.all([sim?.close(), vm?.stop()]);
    });

    const metricsText = async () => {
      const res = await request(`${server.url}/metrics`);
      expect(res.statusCode).toBe(200);
      return res.body.text();
    };

    /** What Prometheus would store from one scrape at `at` (s): target labels added, a series' own ones renamed. */
    async function scrape(at: number): Promise<void> {
      const samples = (await metricsText())
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith('#'))
        .map((l) => `${l.replace(/([{,])(job|instance)="/g, '$1exported_$2="')} ${at * 1000}`);
      samples.push(`up 1 ${at * 1000}`);
      const query = new URLSearchParams([
        ['extra_label', 'job=cdn-collector'],
        ['extra_label', 'instance=collector:9464'],
      ]);
      const res = await request(`${vm.url}/api/v1/import/prometheus?${query}`, {
        method: 'POST',
        body: `${samples.join('\n')}\n`,
      });
      expect(res.statusCode, await res.body.text()).toBe(204);
    }

    /** The alerts whose expression returns a series at `at` (s): what Prometheus would mark pending. */
    async function firing(at: number): Promise<string[]> {
      await (await request(`${vm.url}/internal/force_flush`)).body.dump();
      const out: string[] = [];
      for (const r of rules) {
        const res = await request(
          `${vm.url}/api/v1/query?${new URLSearchParams({ query: r.expr, time: String(at), step: '60s' })}`,
        );
        const body = (await res.body.json()) as { status: string; error?: string; data?: { result: unknown[] } };
        expect(body.status, `${r.alert}: ${body.error ?? ''}`).toBe('success');
        if (body.data!.result.length > 0) out.push(r.alert);
      }
      return out.sort();
    }

    it('name only metrics and labels the collector exports on /metrics (labels mapped as a scrape does)', async () => {
      const text = await metricsText();
      const exported = new Map<string, Set<string>>(Object.entries(BUILTIN).map(([m, l]) => [m, new Set(l)]));
      for (const [, name] of text.matchAll(/^# TYPE (\S+) /gm)) exported.set(name!, new Set(TARGET_LABELS));
      // Labels: those of the samples the running collector shows, and those its metric table declares for the rest.
      for (const [, name, labels] of text.matchAll(/^(\w+)\{([^}]*)\}/gm)) {
        for (const [, key] of labels!.matchAll(/(\w+)="/g)) exported.get(name!)?.add(scraped(key!));
      }
      for (const def of Object.values(METRICS)) {
        for (const l of def.labels) exported.get(def.promName)?.add(scraped(prometheusLabel(l)));
      }
      expect(text).toMatch(/^cdn_collector_api_calls_total\{api="\w+",status="200"\} \d+$/m);

      const problems: string[] = [];
      for (const r of rules) {
        const refs = readPromQL(r.expr);
        const available = new Set<string>();
        for (const { metric, labels } of refs.selectors) {
          const known = exported.get(metric);
          if (!known) {
            problems.push(`${r.alert}: ${metric} is not exported`);
            continue;
          }
          known.forEach((l) => available.add(l));
          for (const l of labels) if (!known.has(l)) problems.push(`${r.alert}: ${metric} has no label ${l}`);
        }
        for (const l of refs.grouping)
          if (!available.has(l)) problems.push(`${r.alert}: groups by ${l}, which none of its metrics has`);
      }
      expect(problems).toEqual([]);
    });

    it('parse and evaluate on VictoriaMetrics: none fires when healthy, the right alerts for each fault', async () => {
      await scrape(t0);
      await scrape(t0 + 5 * 60);
      expect(await firing(t0 + 5 * 60)).toEqual([]);

      const metricsJob = rt.collector.jobs.find((j) => j.key.startsWith('metrics/'))!.key;
      const jobs = SetJobFacts.watchedBy(rt.telemetry, rt.clock, rt.collector.state).lag(metricsJob, 2 * HOUR);
      // Caught up: not stale.
      jobs.lag('streamstat/fine/total/users_daily', 23 * HOUR, 24 * HOUR + 5 * 60_000);
      rt.telemetry.apiCall('statistic', 429);
      rt.telemetry.apiCall('metrics', 401);
      rt.telemetry.condition('auth', 'login refused');
      jobs.setAside(metricsJob, 2);
      rt.telemetry.deadLetters(3);
      rt.telemetry.sinkWriteFailed('HTTP 500');
      await scrape(t0 + 10 * 60);
      await scrape(t0 + 15 * 60);
      expect(await firing(t0 + 15 * 60)).toEqual(
        [
          'CdnAuthFailing',
          'CdnDataStale',
          'CdnDeadLetters',
          'CdnQuotaExhausted',
          'CdnSinkFailing',
          'CdnSpansSetAside',
        ].sort(),
      );
      // A collector that stops answering: its `up` turns 0.
      const res = await request(
        `${vm.url}/api/v1/import/prometheus?extra_label=job=cdn-collector&extra_label=instance=collector:9464`,
        {
          method: 'POST',
          body: `up 0 ${(t0 + 16 * 60) * 1000}\n`,
        },
      );
      await res.body.dump();
      expect(await firing(t0 + 16 * 60)).toContain('CdnCollectorDown');
    }, 60_000);
  },
);
