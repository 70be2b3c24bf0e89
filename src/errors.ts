import { FAILURE, type Failure, SPAN_FAULT } from './failure.js';
import { redactSecrets } from './secrets.js';

/**
 * A stable machine code of the collector's errors (`CDN_ERR_…`, in the manner of undici's `UND_ERR_…`): telemetry,
 * exit codes, logs and tests key on it, never on a class name, so a class can be renamed or split freely. The codes
 * are listed in docs/design.md.
 */
export type ErrorCode = `CDN_ERR${'' | `_${string}`}`;

/** The code given to a failure that is not one of ours (a bug, a library's own error). */
export const UNEXPECTED_CODE = 'CDN_ERR_UNEXPECTED' satisfies ErrorCode;

/**
 * The root of every error the collector raises on purpose. Messages pass through the secret redactor (a server or a
 * user may repeat a token into any string), so no subclass can leak one by accident. Each subclass sets its own `code`.
 */
export class CollectorError extends Error {
  readonly code: ErrorCode = 'CDN_ERR';
  constructor(message?: string, options?: ErrorOptions) {
    super(redactSecrets(message ?? ''), options);
    // Named by its class, so no subclass spells its name a second time.
    this.name = new.target.name;
  }
}

/** The code of any thrown value: its own for the collector's errors, UNEXPECTED_CODE for anything else. */
export function errorCodeOf(err: unknown): ErrorCode {
  return err instanceof CollectorError ? err.code : UNEXPECTED_CODE;
}

/** A parameter broke a rule of the spec; raised before any request is made. */
export class ParameterError extends CollectorError {
  override readonly code = 'CDN_ERR_PARAMETER';
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(`${parameter}: ${message}`);
  }
  [FAILURE](): Failure {
    return SPAN_FAULT;
  }
}
