import { z, type ZodType } from 'zod';
import { CollectorError } from '../../errors.js';
import type { StreamstatGranularity } from '../../spec/streamstat.js';

/**
 * The spec lists `granularity` for stream view statistics but shows no bucketed response; public clients read the
 * flat grouped shape. A service may therefore ignore `granularity` and answer one flat total (or one list of groups)
 * for the whole window. This module recognises that answer; the jobs then read one call per bucket window (read.ts).
 */

/** A service answered a `granularity` request without buckets: its values cover the whole window, not each bucket. */
export class UnbucketedAnswerError extends CollectorError {
  override readonly code = 'CDN_ERR_UNBUCKETED';
  constructor(readonly granularity: StreamstatGranularity) {
    super(`stream view statistics answered granularity=${granularity} without buckets`);
  }
}

const UNBUCKETED = Symbol('unbucketed');
type Unbucketed = typeof UNBUCKETED;

/** `/`: buckets always come as a `result` list; a flat total has none (its values sit beside start/end). */
export function isFlatTotal(body: unknown): boolean {
  return isObject(body) && !Array.isArray(body.result);
}

/**
 * `/<grouping>`: a bucket holds its own `result` list, an element does not. An empty `result` fits both shapes and
 * means no views either way, so it is read as buckets (zero points) and decides nothing.
 */
export function isFlatGrouped(body: unknown): boolean {
  if (!isObject(body) || !Array.isArray(body.result)) return false;
  const first: unknown = body.result[0];
  return isObject(first) && !Array.isArray(first.result);
}

/** `buckets`, except that an answer `isFlat` recognises parses to a marker (not validated: it is not used). */
export function bucketedOrFlat<T>(buckets: ZodType<T>, isFlat: (body: unknown) => boolean): ZodType<T | Unbucketed> {
  return z.unknown().transform((body, ctx): T | Unbucketed => {
    if (isFlat(body)) return UNBUCKETED;
    const parsed = buckets.safeParse(body);
    if (parsed.success) return parsed.data;
    // Forwarded with their paths, so a bad bucket value is still named (e.g. `result.0.views`).
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    return z.NEVER;
  });
}

/** The body, or UnbucketedAnswerError when the service ignored `granularity`. */
export function expectBuckets<T>(body: T | Unbucketed, granularity: StreamstatGranularity): T {
  if (body === UNBUCKETED) throw new UnbucketedAnswerError(granularity);
  return body;
}

/**
 * What this process has learnt of the service's answers to `granularity`, shared by every stream views job (one
 * runtime, one service): unknown until an answer comes flat, then flat for good (`onFlat` runs once, to log it).
 */
export class StreamstatShape {
  private flatSeen = false;
  constructor(private readonly onFlat: (granularity: StreamstatGranularity) => void = () => {}) {}

  get flat(): boolean {
    return this.flatSeen;
  }

  markFlat(granularity: StreamstatGranularity): void {
    if (this.flatSeen) return;
    this.flatSeen = true;
    this.onFlat(granularity);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
