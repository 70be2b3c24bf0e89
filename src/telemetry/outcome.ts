import { ApiError, NetworkError, ResponseFormatError, TimeoutError } from '../http/errors.js';

/** The `status` label of a failed call: the HTTP status when the API answered, else the kind of failure. */
export function outcomeOf(err: unknown): number | string {
  if (err instanceof ApiError) return err.status;
  if (err instanceof TimeoutError) return 'timeout';
  if (err instanceof NetworkError) return 'network';
  if (err instanceof ResponseFormatError) return 'bad_response';
  return 'error';
}
