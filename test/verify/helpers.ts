import { runBackfill } from '../../src/backfill/backfill.js';
import type { Runtime } from '../../src/app/runtime.js';
import type { CollectorConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import type { MeasurementSchema } from '../../src/points.js';
import { planBackfill } from '../../src/plan/planner.js';
import { SCHEMA } from '../../src/schema/schema.js';
import type { Simulator } from '../../src/sim/server.js';
import { DAY } from '../../src/time.js';
import type { SeriesCheck } from '../../src/verify/compare.js';
import { verifyRange } from '../../src/verify/run.js';
import type { VerifyReport } from '../../src/verify/verify.js';
import { configFor, runtimeFor } from '../helpers/collector.js';

/**
 * A whole simulated UTC day, recent (VictoriaMetrics drops points older than its retention, a month by default) and
 * final (statistics are final an hour after a bucket ends): the day before yesterday.
 */
export function verifiedDay(now = Date.now()): { from: number; to: number; windowMs: number } {
  const to = Math.floor(now / DAY) * DAY - DAY;
  return { from: to - DAY, to, windowMs: DAY };
}

/** Statistics and stream views with their default groupings; metrics and DVR off (verify does not read them). */
export function verifyConfig(sim: Simulator, sink: Record<string, unknown>): CollectorConfig {
  return configFor(sim, sink, { jobs: { metrics: { enabled: false }, dvr: { enabled: false } } });
}

/** Collects the day into the configured database through the collector's own backfill. */
export async function collectDay(config: CollectorConfig, range: { from: number; to: number }): Promise<void> {
  const rt = await runtimeFor(config);
  try {
    const results = await runBackfill(rt.collector, planBackfill(rt.collector, range));
    const failed = results.filter((r) => r.error);
    if (failed.length > 0) throw new Error(`backfill failed: ${JSON.stringify(failed)}`);
  } finally {
    await rt.close();
  }
}

/** verify over `range` with a fresh runtime of `config` (closed afterwards). */
export async function verify(
  config: CollectorConfig,
  range: { from: number; to: number; windowMs: number },
  repair = false,
  schema?: ReadonlyMap<string, MeasurementSchema>,
): Promise<{ report: VerifyReport; rt: Runtime }> {
  const rt = await runtimeFor(config);
  try {
    const report = await verifyRange(rt, createLogger('warn', { pretty: false }), range, repair, { schema });
    return { report, rt };
  } finally {
    await rt.close();
  }
}

/** A compact view of drift for assertions. */
export function driftOf(
  checks: readonly SeriesCheck[],
): Array<Pick<SeriesCheck, 'measurement' | 'field' | 'account' | 'difference'>> {
  return checks.map(({ measurement, field, account, difference }) => ({ measurement, field, account, difference }));
}

export { SCHEMA };
