import { CollectorError, type ErrorCode } from '../errors.js';
import {
  FAILURE,
  type Failure,
  HTTP_ARGUMENT_CODES,
  networkFailure,
  retried,
  sinkStatusClass,
  TRANSIENT_NETWORK_CODES,
} from '../failure.js';

/**
 * A write the sink could not complete. `retryable` failures (network, timeout, 5xx, 429, local I/O) leave the data
 * unconfirmed so the caller retries later; others (auth, bad request outside a batch's content) need an operator.
 * An answer's status decides it (src/failure.ts sinkStatusClass), `retryable` only where no status came back.
 * The message never holds credentials.
 */
export class SinkError extends CollectorError {
  override readonly code: ErrorCode = 'CDN_ERR_SINK';
  constructor(
    readonly sink: string,
    /** HTTP status, or undefined when no response arrived. */
    readonly status: number | undefined,
    readonly retryable: boolean,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`sink ${sink}: ${message}`, options);
  }
  [FAILURE](): Failure {
    const failureClass =
      this.status === undefined ? (this.retryable ? 'transient' : 'final') : sinkStatusClass(this.status);
    const code = causeCode(this);
    if (code !== undefined && HTTP_ARGUMENT_CODES.has(code)) return networkFailure(code);
    // Refused for good, or nothing listens at the address: only the database or the config changing cures it.
    const operator = !retried(failureClass) || (code !== undefined && !TRANSIENT_NETWORK_CODES.has(code));
    return { class: failureClass, operator };
  }
}

/** The system code (ECONNREFUSED) behind a sink's failure; a timeout counts as ETIMEDOUT. */
export function causeCode(err: SinkError): string | undefined {
  const cause = err.cause as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = cause?.code ?? cause?.cause?.code;
  if (typeof code === 'string') return code;
  return /timed out/.test(err.message) ? 'ETIMEDOUT' : undefined;
}

/** The system codes of a file that cannot grow, and what each means. */
const NO_ROOM: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large for the file size limit (ulimit -f)',
};

/** Whether a system code says the file cannot grow (a full disk, a quota, a size limit). */
export function isNoRoomCode(code: string | undefined): code is string {
  return code !== undefined && Object.hasOwn(NO_ROOM, code);
}

/**
 * The file sink's file cannot grow: the disk is full, a quota or the file size limit is reached. Retryable (space
 * gets freed), but a command that must finish says so and stops: its message names the cause and the fix.
 */
export class SinkSpaceError extends SinkError {
  override readonly code = 'CDN_ERR_SINK_SPACE';
  constructor(
    sink: string,
    readonly path: string,
    /** ENOSPC, EDQUOT or EFBIG. */
    readonly causeCode: string,
    options?: { cause?: unknown },
  ) {
    super(
      sink,
      undefined,
      true,
      `cannot write ${path}: ${NO_ROOM[causeCode] ?? causeCode} (${causeCode}); free space on its file system ` +
        '(or raise the limit), or point sink.path at another one',
      options,
    );
  }
}

/**
 * A point that does not fit the measurement schema (unknown measurement or field, wrong value type): a bug in the
 * code that produced it, not bad data, so it fails the write instead of being dead-lettered.
 */
export class EncodeError extends CollectorError {
  override readonly code = 'CDN_ERR_SINK_ENCODE';
  constructor(
    readonly measurement: string,
    readonly field: string | undefined,
    message: string,
  ) {
    super(`${measurement}${field === undefined ? '' : `.${field}`}: ${message}`);
  }
}

/** A value the target's line protocol cannot express exactly (e.g. a trailing backslash for InfluxDB 1.x). */
export class UnrepresentableError extends CollectorError {
  override readonly code = 'CDN_ERR_SINK_UNREPRESENTABLE';
  constructor(
    readonly part: string,
    readonly value: string,
    message: string,
  ) {
    super(`${part} ${JSON.stringify(value)}: ${message}`);
  }
}

/**
 * A value that is not a measurement: negative where the field is a count, size or duration, or an integer outside
 * int64. Bad data from the API, not a bug: the point is dead-lettered with this reason and the rest is written.
 */
export class InvalidValueError extends CollectorError {
  override readonly code = 'CDN_ERR_INVALID_VALUE';
  constructor(
    readonly measurement: string,
    readonly field: string,
    readonly value: number,
    message: string,
  ) {
    super(`${measurement}.${field}: ${message}`);
  }
}
