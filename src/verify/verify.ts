import type { ServerPaging } from '../paging/server-paging.js';
import type { Clock } from '../clock.js';
import type { HttpClient } from '../http/client.js';
import type { Logger } from '../log.js';
import type { MeasurementSchema } from '../points.js';
import type { Sink } from '../sink/types.js';
import type { CollectJob } from '../sources/common/types.js';
import { compareStored, expectations, type SeriesCheck } from './compare.js';
import { readProvider } from './expected.js';
import type { VerifyPlan } from './plan.js';
import type { StoredReader } from './readers/types.js';
import { repairDrift, type RepairResult } from './repair.js';

export interface VerifyDeps {
  /** Gated by the limiter: every provider call counts against the quotas and the journal. */
  http: HttpClient;
  /** What paging learnt of the server (the runtime's: api.maxPages, the page cap); default: a fresh one. */
  paging?: ServerPaging;
  reader: StoredReader;
  /** Needed with `repair`. */
  jobs: readonly CollectJob[];
  sink: Sink;
  clock: Clock;
  log: Logger;
  /** With `repair`: how long a write is retried through a database outage (`output.retryFor`). */
  writeRetryMs?: number;
  /** The measurement schema whose `aggregate`s say what adds up (default: SCHEMA). */
  schema?: ReadonlyMap<string, MeasurementSchema>;
}

export interface VerifyReport {
  from: number;
  to: number;
  windowMs: number;
  reader: StoredReader['kind'];
  /** Series compared (measurement × field × account × window). */
  series: number;
  /** Every compared series (drifting or not), for the per-series gauges. */
  checked: SeriesCheck[];
  drift: SeriesCheck[];
  /** With repair: what was re-collected, and the drift found by the re-check. */
  repair?: Omit<RepairResult, 'written'> & { after: SeriesCheck[] };
}

/** One comparison of the provider's coarse totals with the stored sums. */
async function check(plan: VerifyPlan, deps: VerifyDeps): Promise<SeriesCheck[]> {
  const expected = expectations(await readProvider(deps.http, plan, deps.paging), plan.accounts, deps.schema);
  return compareStored(expected, deps.reader, { from: plan.from, to: plan.to, accounts: plan.accounts });
}

/**
 * Verifies `plan`: provider totals against stored sums, drift per series. With `repair`, re-collects the drifting
 * windows (repair.ts) and checks again, reading the provider again (its totals are the reference, not the first read).
 */
export async function runVerify(plan: VerifyPlan, deps: VerifyDeps, repair = false): Promise<VerifyReport> {
  const checks = await check(plan, deps);
  const drift = checks.filter((c) => c.drift);
  const report: VerifyReport = {
    from: plan.from,
    to: plan.to,
    windowMs: plan.windowMs,
    reader: deps.reader.kind,
    series: checks.length,
    checked: checks,
    drift,
  };
  if (!repair || drift.length === 0) return report;
  const repaired = await repairDrift(drift, deps);
  await deps.sink.flush();
  await deps.reader.settle(repaired.written);
  const after = (await check(plan, deps)).filter((c) => c.drift);
  const { written: _written, ...summary } = repaired;
  return { ...report, repair: { ...summary, after } };
}

/** Whether drift remains: after a repair, the re-check decides. */
export function driftRemains(report: Pick<VerifyReport, 'drift' | 'repair'>): boolean {
  return (report.repair ? report.repair.after : report.drift).length > 0;
}
