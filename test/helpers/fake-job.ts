import type { Point } from '../../src/points.js';
import { SINGLE_CALL } from '../../src/sources/paging.js';
import type { CollectJob, Span } from '../../src/sources/types.js';

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
