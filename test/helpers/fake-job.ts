import pino from 'pino';
import { ManualClock } from '../../src/clock.js';
import { Collector, type CollectorDeps } from '../../src/collector/collector.js';
import type { HttpClient } from '../../src/http/client.js';
import type { LimiterSet } from '../../src/limit/index.js';
import type { Point } from '../../src/points.js';
import type { Sink } from '../../src/sink/types.js';
import { CheckpointStore } from '../../src/state/checkpoints.js';
import { SetAsideStore } from '../../src/state/set-aside.js';
import { RefusalReports } from '../../src/telemetry/refusal-reports.js';
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { SINGLE_CALL } from '../../src/paging/walk.js';
import type { CollectJob, Span } from '../../src/sources/common/types.js';

export const MIN = 60_000;
/** Span 0 of a fake job starts here. */
export const T0 = Date.UTC(2026, 0, 1);

/** Index of a one-minute span counted from T0. */
export const spanIndex = (span: Span): number => (span.from - T0) / MIN;

/**
 * A checkpointed job of one-minute windows over fake data, for collector tests that need no API: `read(i)` is called
 * with each span's index and gives the field `v` of its one point (or throws the span's error).
 */
export function fakeJob(read: (i: number) => number | Promise<number>): CollectJob {
  return {
    key: 'fake/job',
    api: 'metrics',
    rule: { stepMs: MIN, delayMs: 0, maxSpanMs: MIN },
    checkpointed: true,
    callsFor: () => SINGLE_CALL,
    async collect(span) {
      const v = await read(spanIndex(span));
      return [{ measurement: 'm', tags: {}, fields: { v }, time: span.from } as Point];
    },
  };
}

/**
 * A Collector of one fake job with real checkpoint and set-aside stores in `dir`, a sink that confirms everything, no
 * network and a ManualClock at `lookbackMin` windows after T0: `fail(i)` gives the error of span i, if any.
 */
export async function fakeCollector(dir: string, fail: (i: number) => Error | undefined, lookbackMin = 4) {
  const calls: number[] = [];
  const job = fakeJob((i) => {
    calls.push(i);
    const err = fail(i);
    if (err) throw err;
    return 1;
  });
  const sink: Sink = {
    name: 'ok',
    write: async (p) => ({ written: p.length, rejected: 0 }),
    flush: async () => {},
    close: async () => {},
  };
  const clock = new ManualClock(T0 + lookbackMin * MIN);
  const store = await CheckpointStore.open(dir);
  const { store: aside } = await SetAsideStore.open(dir, { clock });
  const telemetry = new Telemetry({ clock });
  const collector = offlineCollector({
    jobs: [job],
    sink,
    store,
    aside,
    telemetry,
    clock,
    horizonMs: 24 * 60 * MIN,
    initialLookbackMs: lookbackMin * MIN,
  });
  return { collector, job, store, aside, telemetry, clock, calls, close: () => store.close() };
}

/**
 * A Collector of jobs that make no HTTP call (fake jobs): no client, no limiter, a silent log unless given one. With
 * `telemetry`, wired as the runtime wires it: refused points reported to it, and it reads the collector's job state.
 */
export function offlineCollector(
  deps: Omit<CollectorDeps, 'http' | 'limiters' | 'log'> & { log?: CollectorDeps['log']; telemetry?: Telemetry },
): Collector {
  const { telemetry, ...rest } = deps;
  const log = deps.log ?? pino({ level: 'silent' });
  const collector = new Collector({
    ...rest,
    log,
    ...(telemetry && !deps.writes ? { writes: new RefusalReports(telemetry, log, deps.clock, undefined) } : {}),
    http: { withGate: () => ({}) } as unknown as HttpClient,
    limiters: { gate: () => undefined } as unknown as LimiterSet,
  });
  telemetry?.watchJobs(collector.state);
  return collector;
}

/** The last error of each job whose newest pass failed, and when (what `status` shows), from the job state. */
export function lastErrors(collector: Collector): Record<string, { error: string; at: number }> {
  const failed = collector.state.snapshot().jobs.flatMap((j) => (j.lastError ? [[j.key, j.lastError] as const] : []));
  return Object.fromEntries(failed);
}

/** Jobs with spans set aside, and how many (what /healthz shows), from the job state. */
export function setAsideByJob(collector: Collector): Record<string, number> {
  const aside = collector.state.snapshot().jobs.flatMap((j) => (j.setAside > 0 ? [[j.key, j.setAside] as const] : []));
  return Object.fromEntries(aside);
}
