import { readdirSync, readFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';
import { Counter, Gauge, Registry } from 'prom-client';
import { VERSION } from '../version.js';
import { METRIC_PREFIX } from './metrics.js';

/**
 * The process and runtime metrics every Prometheus exporter serves, under the names of prom-client's default metrics
 * (so existing dashboards and alerts apply) but read from node's own APIs: its default collectors would add dozens of
 * series and measure the event loop another way.
 */
interface ProcessMetric {
  name: string;
  type: 'gauge' | 'counter';
  help: string;
  value: () => number | undefined;
  labels?: Record<string, string>;
}

/** Started once: the event loop's delay histogram samples every 20 ms and costs next to nothing. */
let loopDelay: IntervalHistogram | undefined;

function eventLoop(): IntervalHistogram {
  if (!loopDelay) {
    loopDelay = monitorEventLoopDelay({ resolution: 20 });
    loopDelay.enable();
  }
  return loopDelay;
}

const startedAt = Math.round(performance.timeOrigin) / 1000;

/** Linux only (the image); absent elsewhere rather than wrong. */
function openFds(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}

function maxFds(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft === undefined || soft === 'unlimited' ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

const gauge = (name: string, help: string, value: ProcessMetric['value'], labels?: Record<string, string>) =>
  ({ name, type: 'gauge', help, value, ...(labels ? { labels } : {}) }) satisfies ProcessMetric;
const counter = (name: string, help: string, value: ProcessMetric['value']) =>
  ({ name, type: 'counter', help, value }) satisfies ProcessMetric;

/** Read at each scrape; the event-loop figures cover the time since the previous scrape. */
function definitions(): ProcessMetric[] {
  const loop = eventLoop();
  const ns = (v: number) => (Number.isFinite(v) ? v / 1e9 : 0);
  const cpu = () => process.cpuUsage();
  const mem = () => process.memoryUsage();
  return [
    counter('process_cpu_user_seconds_total', 'User CPU time spent, in seconds', () => cpu().user / 1e6),
    counter('process_cpu_system_seconds_total', 'System CPU time spent, in seconds', () => cpu().system / 1e6),
    counter('process_cpu_seconds_total', 'User and system CPU time spent, in seconds', () => {
      const { user, system } = cpu();
      return (user + system) / 1e6;
    }),
    gauge('process_start_time_seconds', 'Start time of the process since the epoch, in seconds', () => startedAt),
    gauge('process_resident_memory_bytes', 'Resident memory size, in bytes', () => process.memoryUsage.rss()),
    gauge('process_open_fds', 'Open file descriptors', openFds),
    gauge('process_max_fds', 'Maximum number of open file descriptors', maxFds),
    gauge('nodejs_heap_size_total_bytes', 'V8 heap size, in bytes', () => mem().heapTotal),
    gauge('nodejs_heap_size_used_bytes', 'V8 heap used, in bytes', () => mem().heapUsed),
    gauge(
      'nodejs_external_memory_bytes',
      'Memory of C++ objects bound to JavaScript objects, in bytes',
      () => mem().external,
    ),
    gauge('nodejs_eventloop_lag_seconds', 'Mean event loop delay since the previous scrape, in seconds', () =>
      ns(loop.mean),
    ),
    gauge(
      'nodejs_eventloop_lag_p99_seconds',
      '99th percentile of the event loop delay since the previous scrape, in seconds',
      () => ns(loop.percentile(99)),
    ),
    gauge('nodejs_eventloop_lag_max_seconds', 'Longest event loop delay since the previous scrape, in seconds', () =>
      ns(loop.max),
    ),
    gauge(
      'nodejs_active_resources',
      'Resources keeping the event loop alive (sockets, timers, …)',
      () => process.getActiveResourcesInfo().length,
    ),
    gauge('nodejs_version_info', 'Node.js version', () => 1, { version: process.version }),
    gauge(`${METRIC_PREFIX}_build_info`, 'The collector version that runs (value 1)', () => 1, {
      version: VERSION,
    }),
  ];
}

/** Process-wide, so one registry per process (not prom-client's global one); made at the first scrape. */
let registry: Registry | undefined;

function processRegistry(): Registry {
  if (registry) return registry;
  registry = new Registry();
  for (const def of definitions()) {
    const labels = def.labels ?? {};
    const config = { name: def.name, help: def.help, labelNames: Object.keys(labels), registers: [registry] };
    // A value the platform does not give (no /proc) leaves the metric without a series rather than a wrong one.
    const fill = (metric: Counter | Gauge) => {
      const value = def.value();
      metric.remove(labels);
      if (value === undefined || !Number.isFinite(value)) return;
      if (metric instanceof Counter) metric.inc(labels, value);
      else metric.set(labels, value);
    };
    if (def.type === 'counter')
      new Counter({
        ...config,
        collect: function () {
          fill(this);
        },
      });
    else
      new Gauge({
        ...config,
        collect: function () {
          fill(this);
        },
      });
  }
  return registry;
}

/** Prometheus text of the process and runtime metrics; the event-loop histogram restarts with each scrape. */
export async function renderProcessMetrics(): Promise<string> {
  const text = await processRegistry().metrics();
  eventLoop().reset();
  return text;
}
/** Starts measuring the event loop now, so the first scrape reports more than nothing (the daemon calls it at start).
 * */
export function startProcessMetrics(): void {
  eventLoop();
}
