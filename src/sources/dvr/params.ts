import { ParameterError } from '../../errors.js';

/** A range deletion: `fromTs` plus exactly one of `durationSec` or `toTs` (unix seconds). */
export interface DvrDeleteRange {
  host: string;
  fromTs: number;
  durationSec?: number;
  toTs?: number;
}

export interface DvrDeleteRangeBody {
  host: string;
  from_ts: number;
  duration_sec?: number;
  to_ts?: number;
}

export interface DvrDeleteAllBody {
  all: true;
  host: string;
}

/**
 * Checks a range deletion against the spec's rules and builds its body. Sending both `duration_sec` and `to_ts` has
 * no documented meaning, so the client refuses it rather than guess which one the service honours.
 */
export function deleteRangeBody(range: DvrDeleteRange): DvrDeleteRangeBody {
  requireHost(range.host);
  requireInteger('from_ts', range.fromTs, 0, 'must be ≥ 0');
  const hasDuration = range.durationSec !== undefined;
  const hasTo = range.toTs !== undefined;
  if (hasDuration && hasTo) throw new ParameterError('duration_sec', 'send either duration_sec or to_ts, not both');
  if (!hasDuration && !hasTo) throw new ParameterError('duration_sec', 'one of duration_sec or to_ts is required');
  const body: DvrDeleteRangeBody = { host: range.host, from_ts: range.fromTs };
  if (hasDuration) {
    requireInteger('duration_sec', range.durationSec, 1, 'must be > 0');
    body.duration_sec = range.durationSec;
  } else {
    requireInteger('to_ts', range.toTs, range.fromTs + 1, 'must be greater than from_ts');
    body.to_ts = range.toTs;
  }
  return body;
}

export function deleteAllBody(host: string): DvrDeleteAllBody {
  requireHost(host);
  return { all: true, host };
}

/** The end (exclusive, unix seconds) of a checked range deletion. */
export function rangeEnd(range: DvrDeleteRange): number {
  return range.toTs ?? range.fromTs + (range.durationSec ?? 0);
}

function requireHost(host: string): void {
  if (typeof host !== 'string' || host.length === 0) throw new ParameterError('host', 'must be a non-empty string');
}

function requireInteger(parameter: string, value: unknown, min: number, tooSmall: string): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value))
    throw new ParameterError(parameter, 'must be an integer');
  if (value < min) throw new ParameterError(parameter, tooSmall);
}
