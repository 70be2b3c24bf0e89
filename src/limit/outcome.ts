import { errorCodeOf, type ErrorCode } from '../errors.js';
import { ApiError } from '../http/errors.js';

/** What one attempt of a call came to: its value, or what it threw. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Runs `send` once; what it throws is an outcome, not an exception. */
export async function settle<T>(send: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await send() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Status (when an HTTP response came back) and error code of an attempt, for events. */
export function describeOutcome(outcome: Outcome<unknown>): { status?: number; code?: ErrorCode } {
  if (outcome.ok) {
    const v = outcome.value as { status?: unknown } | null;
    return typeof v === 'object' && v !== null && typeof v.status === 'number' ? { status: v.status } : {};
  }
  return describeError(outcome.error);
}

/** Status (an HTTP error's) and error code of a failure, for events. */
export function describeError(err: unknown): { status?: number; code: ErrorCode } {
  const code = errorCodeOf(err);
  return err instanceof ApiError ? { status: err.status, code } : { code };
}
