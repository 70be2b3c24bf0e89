import { ApiError } from '../http/errors.js';

/** A one-line description of a failure for logs: typed errors already carry a redacted request. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
