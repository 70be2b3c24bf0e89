import type { Point } from '../points.js';
import type { WriteResult } from '../sink/types.js';

/**
 * Where the collector says what is not a job's fact (the composition root wires them to telemetry and the log): the
 * collector reports through these and imports nothing of telemetry.
 */

/** A named condition that makes the process unhealthy until cleared (`reason` undefined). */
export interface ConditionReports {
  condition(name: string, reason: string | undefined): void;
}

/** Told of each confirmed write of `points` (for `jobs`); returns how many of them the database refused for good. */
export interface WriteReports {
  written(result: WriteResult, points: readonly Point[], jobs: string): number;
}

/** Counts refused points and reports nothing (a collector with no telemetry wired). */
export const silentWriteReports: WriteReports = {
  written: (result) => (result.refusals ?? []).reduce((n, r) => n + r.points, 0),
};
