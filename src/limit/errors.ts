import { CollectorError } from '../errors.js';
import { FAILURE, type Failure, FINAL, TRANSIENT } from '../failure.js';
import type { ApiName } from '../spec/apis.js';

/** The limiter is shutting down: the call was queued (or waiting to retry) and will not be sent. */
export class LimiterClosedError extends CollectorError {
  override readonly code = 'CDN_ERR_LIMITER_CLOSED';
  constructor(
    readonly api: ApiName,
    options?: { cause?: unknown },
  ) {
    super(`${api}: limiter closed; the call was not sent`, options);
  }
  [FAILURE](): Failure {
    return FINAL;
  }
}

/** The call's deadline passed before it could be sent even once (with at least one attempt, its last error is thrown).
 * */
export class LimiterDeadlineError extends CollectorError {
  override readonly code = 'CDN_ERR_LIMITER_DEADLINE';
  constructor(
    readonly api: ApiName,
    readonly deadlineMs: number,
  ) {
    super(`${api}: no quota slot within the deadline of ${deadlineMs} ms`);
  }
  [FAILURE](): Failure {
    return TRANSIENT;
  }
}
