import { ApiError, BodyTooLargeError, PagingError, ResponseFormatError } from '../http/errors.js';
import { ParameterError } from '../errors.js';

/** A one-line description of a failure for logs: typed errors already carry a redacted request. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

/**
 * A failure that belongs to one span and would come back the same on an immediate retry: a body that is JSON but
 * does not fit the schema, a 4xx that is neither 429 (quota) nor 401/403 (the token: every span would fail), a
 * parameter the spec refuses, a body over the size cap, a paged read the server would not let end. Such a span is set aside so the spans after it can go on. Anything else (network,
 * timeout, 5xx, a body that is not JSON, after the limiter's retries) ends the pass as transient.
 */
export function isSpanFault(err: unknown): boolean {
  if (err instanceof ResponseFormatError) return err.kind === 'schema';
  if (err instanceof ApiError) return err.status >= 400 && err.status < 500 && ![401, 403, 429].includes(err.status);
  return err instanceof ParameterError || err instanceof BodyTooLargeError || err instanceof PagingError;
}
