import type { ServerPaging } from '../paging/server-paging.js';
import type { Clock } from '../clock.js';
import type { Collector } from '../collector/collector.js';
import type { AccountDiscovery } from '../collector/discovery.js';
import type { CollectorConfig } from '../config/schema.js';
import type { HttpClient } from '../http/client.js';
import type { LimiterSet } from '../limit/index.js';
import type { Sink } from '../sink/types.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { Logger } from '../log.js';
import type { MeasurementSchema } from '../points.js';
import type { SeriesCheck } from './compare.js';
import { giveUpGate } from './give-up.js';
import { planVerify } from './plan.js';
import { readerFor } from './readers/index.js';
import { driftRemains, runVerify, type VerifyReport } from './verify.js';

/** What of a runtime (the daemon's, or the command's own) a verify runs on. */
export interface VerifyHost {
  readonly config: CollectorConfig;
  readonly clock: Clock;
  readonly collector: Pick<Collector, 'jobs'>;
  readonly http: HttpClient;
  /** What paging learnt of the server (api.maxPages, the page cap): the provider's paged reads share it. */
  readonly paging: ServerPaging;
  readonly limiters: LimiterSet;
  readonly sink: Sink;
  readonly telemetry: Pick<Telemetry, 'apiFailingSince' | 'verified'>;
  readonly discovery: AccountDiscovery | undefined;
}

export interface VerifyRange {
  from: number;
  to: number;
  windowMs: number;
}

/** The accounts this runtime collects: the config's list, or those discovery found (refreshed first). */
async function accountsOf(rt: VerifyHost): Promise<readonly string[]> {
  if (rt.config.accounts !== 'auto') return rt.config.accounts;
  await rt.discovery?.refresh();
  return rt.discovery?.accounts ?? [];
}

export interface VerifyRangeOptions {
  /** The sink's measurement schema, where it is not the sources' (tests). */
  schema?: ReadonlyMap<string, MeasurementSchema>;
  /** Ends the verify: its calls waiting for quota are dropped, and it rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Verifies `range` with the runtime's limiter-gated client (backfill priority: live collection goes first), sink and
 * jobs, and reports the result to telemetry (/metrics and cdn_collector points). An API that fails every call for
 * `verify.giveUpAfter` ends it with a VerifyGaveUpError.
 */
export async function verifyRange(
  rt: VerifyHost,
  log: Logger,
  range: VerifyRange,
  repair: boolean,
  { schema, signal: stop }: VerifyRangeOptions = {},
): Promise<VerifyReport> {
  const reader = readerFor(rt.config);
  try {
    const plan = planVerify(rt.config, await accountsOf(rt), range.from, range.to, range.windowMs);
    const limited = (giveUp: AbortSignal) =>
      rt.limiters.gate('backfill', { signal: stop ? AbortSignal.any([giveUp, stop]) : giveUp });
    const failingSince = (api: string) => rt.telemetry.apiFailingSince(api);
    const gate = giveUpGate(limited, failingSince, rt.clock, rt.config.verify.giveUpAfter);
    const http = rt.http.withGate(gate);
    const report = await runVerify(
      plan,
      {
        http,
        paging: rt.paging,
        reader,
        jobs: rt.collector.jobs,
        sink: rt.sink,
        writeRetryMs: rt.config.output.retryFor,
        clock: rt.clock,
        log,
        ...(schema ? { schema } : {}),
      },
      repair,
    );
    rt.telemetry.verified(driftBySeries(report));
    const level = driftRemains(report) ? 'warn' : 'info';
    log[level](
      { series: report.series, drift: report.drift.length, remaining: report.repair?.after.length },
      'verify finished',
    );
    return report;
  } finally {
    await reader.close();
  }
}

/** Per measurement, field and account: the summed difference of its drifting windows (after a repair: of the re-check).
 * */
export function driftBySeries(
  report: VerifyReport,
): Array<{ measurement: string; field: string; account: string; drift: number }> {
  const out = new Map<string, { measurement: string; field: string; account: string; drift: number }>();
  const add = (c: SeriesCheck, drift: number) => {
    const key = JSON.stringify([c.measurement, c.field, c.account]);
    const seen = out.get(key) ?? { measurement: c.measurement, field: c.field, account: c.account, drift: 0 };
    seen.drift += drift;
    out.set(key, seen);
  };
  for (const c of report.checked) add(c, 0);
  for (const c of report.repair ? report.repair.after : report.drift) add(c, c.difference);
  return [...out.values()];
}
