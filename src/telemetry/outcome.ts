import type { ErrorCode } from '../errors.js';

/** How a call failed when no HTTP status tells it (docs/schema.md, the `status` tag of `api_calls`). */
export type FailureKind = 'timeout' | 'network' | 'bad_response' | 'error';

/** The one mapping from error codes to failure kinds; any other code is `error`. */
const KIND_OF_CODE: Partial<Record<ErrorCode, FailureKind>> = {
  CDN_ERR_TIMEOUT: 'timeout',
  CDN_ERR_NETWORK: 'network',
  CDN_ERR_RESPONSE_FORMAT: 'bad_response',
  CDN_ERR_BODY_TOO_LARGE: 'bad_response',
  CDN_ERR_CONTENT_ENCODING: 'bad_response',
};

/** The `status` label of a finished call: the HTTP status when the API answered, else the kind of failure. */
export function callOutcome(status: number | undefined, code: ErrorCode | undefined): number | FailureKind {
  if (status !== undefined) return status;
  return (code && KIND_OF_CODE[code]) ?? 'error';
}
