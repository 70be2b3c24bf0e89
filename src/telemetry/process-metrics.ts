import { readdirSync, readFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';
import { VERSION } from '../version.js';
import { METRIC_PREFIX } from './metrics.js';
import { escapeLabelValue } from './prometheus.js';

/**
 * The process and runtime metrics every Prometheus exporter serves (names as prom-client's default metrics, so
 * existing dashboards and alerts apply), read from node's own APIs: no dependency for a dozen gauges.
 */
interface Gauge {
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

const startTimeSeconds = Math.round(performance.timeOrigin) / 1000;

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
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft === undefined || soft === 'unlimited' ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

function gauges(): Gauge[] {
  const cpu = process.cpuUsage();
  const mem = process.memoryUsage();
  const loop = eventLoop();
  const ns = (v: number) => (Number.isFinite(v) ? v / 1e9 : 0);
  return [
    { name: 'process_cpu_user_seconds_total', type: 'counter', help: 'User CPU time spent, in seconds', value: () => cpu.user / 1e6 },
    { name: 'process_cpu_system_seconds_total', type: 'counter', help: 'System CPU time spent, in seconds', value: () => cpu.system / 1e6 },
    { name: 'process_cpu_seconds_total', type: 'counter', help: 'User and system CPU time spent, in seconds', value: () => (cpu.user + cpu.system) / 1e6 },
    { name: 'process_start_time_seconds', type: 'gauge', help: 'Start time of the process since the epoch, in seconds', value: () => startTimeSeconds },
    { name: 'process_resident_memory_bytes', type: 'gauge', help: 'Resident memory size, in bytes', value: () => mem.rss },
    { name: 'process_open_fds', type: 'gauge', help: 'Open file descriptors', value: openFds },
    { name: 'process_max_fds', type: 'gauge', help: 'Maximum number of open file descriptors', value: maxFds },
    { name: 'nodejs_heap_size_total_bytes', type: 'gauge', help: 'V8 heap size, in bytes', value: () => mem.heapTotal },
    { name: 'nodejs_heap_size_used_bytes', type: 'gauge', help: 'V8 heap used, in bytes', value: () => mem.heapUsed },
    { name: 'nodejs_external_memory_bytes', type: 'gauge', help: 'Memory of C++ objects bound to JavaScript objects, in bytes', value: () => mem.external },
    {
      name: 'nodejs_eventloop_lag_seconds',
      type: 'gauge',
      help: 'Mean event loop delay since the previous scrape, in seconds',
      value: () => ns(loop.mean),
    },
    { name: 'nodejs_eventloop_lag_p99_seconds', type: 'gauge', help: '99th percentile of the event loop delay since the previous scrape, in seconds', value: () => ns(loop.percentile(99)) },
    { name: 'nodejs_eventloop_lag_max_seconds', type: 'gauge', help: 'Longest event loop delay since the previous scrape, in seconds', value: () => ns(loop.max) },
    { name: 'nodejs_active_resources', type: 'gauge', help: 'Resources keeping the event loop alive (sockets, timers, …)', value: () => process.getActiveResourcesInfo().length },
    { name: 'nodejs_version_info', type: 'gauge', help: 'Node.js version', value: () => 1, labels: { version: process.version } },
    {
      name: `${METRIC_PREFIX}_build_info`,
      type: 'gauge',
      help: 'The collector version that runs (value 1)',
      value: () => 1,
      labels: { version: VERSION },
    },
  ];
}

/** Prometheus text of the process and runtime metrics; the event-loop histogram restarts with each scrape. */
export function renderProcessMetrics(): string {
  const lines: string[] = [];
  for (const g of gauges()) {
    const value = g.value();
    if (value === undefined || !Number.isFinite(value)) continue;
    const labels = g.labels ? `{${Object.entries(g.labels).map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(',')}}` : '';
    lines.push(`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} ${g.type}`, `${g.name}${labels} ${value}`);
  }
  eventLoop().reset();
  return `${lines.join('\n')}\n`;
}

/** Starts measuring the event loop now, so the first scrape reports more than nothing (the daemon calls it at start). */
export function startProcessMetrics(): void {
  eventLoop();
}
