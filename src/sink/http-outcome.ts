/** Maps an HTTP write's outcome to the batching contract, the same way for every HTTP sink. */
import type { Rejection } from './batching.js';
import { retried, sinkStatusClass } from '../failure.js';
import { SinkError } from './errors.js';

/**
 * undefined for 2xx, a Rejection for content the server refuses for good, otherwise throws SinkError (retryable for
 * 408/429/5xx). `what` names the request without credentials, e.g. `POST /write?db=x`.
 */
export function outcomeOf(sink: string, what: string, status: number, body: string): Rejection | undefined {
  if (status >= 200 && status < 300) return undefined;
  const reason = serverMessage(body) || `HTTP ${status}`;
  const failureClass = sinkStatusClass(status);
  if (failureClass === 'span') return { status, reason };
  throw new SinkError(sink, status, retried(failureClass), `${what} → HTTP ${status}: ${reason}`);
}

/** A network failure or timeout: always retryable, message from the error code only. */
export function transportFailure(
  sink: string,
  what: string,
  err: unknown,
  timedOut: boolean,
  timeoutMs: number,
): SinkError {
  const message = timedOut ? `timed out after ${timeoutMs} ms` : `failed: ${errorCode(err) ?? 'network error'}`;
  return new SinkError(sink, undefined, true, `${what} ${message}`, { cause: err });
}

/** InfluxDB answers `{"error": "…"}` (1.x) or `{"code": …, "message": "…"}` (2.x); others plain text. */
export function serverMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; message?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON
  }
  return body.trim().slice(0, 1000);
}

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  return err instanceof Error ? err.name : undefined;
}
