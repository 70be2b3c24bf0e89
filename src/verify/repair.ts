import type { Clock } from '../clock.js';
import type { HttpClient } from '../http/client.js';
import type { Logger } from '../log.js';
import type { Point } from '../points.js';
import { spans } from '../plan/windows.js';
import { retryingSink } from '../sink/retrying.js';
import { DEFAULT_WRITE_RETRY_MS, type Sink } from '../sink/types.js';
import type { CollectJob } from '../sources/common/types.js';
import type { SeriesCheck } from './compare.js';
import type { StoredReader } from './readers/types.js';

export interface RepairDeps {
  jobs: readonly CollectJob[];
  /** Gated by the limiter (backfill priority): repair spends the same quotas as everything else. */
  http: HttpClient;
  sink: Sink;
  /** Where the points go: a database that keeps every sample gets only what it lacks (StoredReader.unstored). */
  reader: StoredReader;
  clock: Clock;
  log: Logger;
  /** How long a repair's write is retried through a database outage (`output.retryFor`). */
  writeRetryMs?: number;
}

export interface RepairResult {
  /** Job key → window starts re-collected. */
  recollected: Record<string, number[]>;
  /** Points written (on VictoriaMetrics, only the samples it lacked). */
  points: number;
  written: Point[];
}

/**
 * The checkpointed jobs a drift names, by exact key (a prefix would also take e.g. the uniques jobs of a grouping), or
 * whose checkpoint keys include it (a job reading several accounts' totals in one call, `sharedKeys`).
 */
function jobsOf(drift: SeriesCheck, jobs: readonly CollectJob[]): CollectJob[] {
  const keysOf = (j: CollectJob) => [j.key, ...((j as { sharedKeys?: () => string[] }).sharedKeys?.() ?? [])];
  return jobs.filter((j) => j.checkpointed && keysOf(j).some((k) => drift.jobs.includes(k)));
}

/**
 * Re-collects exactly the drifting windows with the jobs' own collect functions and writes the points through the
 * sink: the same series and times overwrite what InfluxDB holds; VictoriaMetrics, which keeps every sample, gets only
 * the samples it lacks (a second value at a stored time cannot be undone by writing: the re-check still reports it).
 * Checkpoints are left alone: those windows are
 * already confirmed, and rewriting confirmed points is what every replay does (idempotent).
 */
export async function repairDrift(drifts: readonly SeriesCheck[], deps: RepairDeps): Promise<RepairResult> {
  // Job → window start → window length (a day of sums, or the hour of a unique count).
  const windows = new Map<CollectJob, Map<number, number>>();
  for (const d of drifts) {
    for (const job of jobsOf(d, deps.jobs))
      windows.set(job, (windows.get(job) ?? new Map<number, number>()).set(d.time, d.windowMs));
  }
  const sink = retryingSink(deps.sink, { clock: deps.clock, deadlineMs: deps.writeRetryMs ?? DEFAULT_WRITE_RETRY_MS });
  const result: RepairResult = { recollected: {}, points: 0, written: [] };
  for (const [job, starts] of windows) {
    const sorted = [...starts.keys()].sort((a, b) => a - b);
    for (const start of sorted) {
      for (const span of spans(job.rule, start, start + starts.get(start)!)) {
        const collected = await job.collect(span, deps.http);
        const points = deps.reader.unstored ? await deps.reader.unstored(collected) : collected;
        await sink.write(points);
        result.points += points.length;
        result.written.push(...points);
      }
    }
    result.recollected[job.key] = sorted;
    deps.log.info(
      { job: job.key, windows: sorted.map((t) => new Date(t).toISOString()) },
      'verify: drifting windows re-collected',
    );
  }
  return result;
}
