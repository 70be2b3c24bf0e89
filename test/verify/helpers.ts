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
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, type Daemon } from '../../src/app/daemon.js';
import { loadConfigFile } from '../../src/config/loader.js';
import type { Logger } from '../../src/log.js';
import { configFor, runtimeFor, writeSimConfig } from '../helpers/collector.js';

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

/** A daemon in this process on a fresh state dir: `sim`'s statistics and stream views into InfluxDB 1.x `database`. */
export interface VerifyDaemon {
  dir: string;
  /** Its config file, for the commands run beside it. */
  file: string;
  rt: Runtime;
  daemon: Daemon;
  stop(): Promise<void>;
}

export async function startVerifyDaemon(prefix: string, sim: Simulator, dbUrl: string, log: Logger) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const file = writeSimConfig(dir, sim, {
    accounts: sim.accounts,
    jobs: { metrics: { enabled: false }, dvr: { enabled: false } },
    sink: { type: 'influx-v1', url: dbUrl, database: 'cdn' },
    log: { level: 'warn' },
  });
  const rt = await runtimeFor(loadConfigFile(file));
  const daemon = startDaemon(rt, log);
  const stop = async () => {
    await daemon.stop();
    await rt.close();
  };
  return { dir, file, rt, daemon, stop } satisfies VerifyDaemon;
}
