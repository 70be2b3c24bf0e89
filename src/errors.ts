import { redactSecrets } from './secrets.js';

/**
 * The root of every error the collector raises on purpose. Messages pass through the secret redactor (a server or a
 * user may repeat a token into any string), so no subclass can leak one by accident.
 */
export class CollectorError extends Error {
  override name = 'CollectorError';
  constructor(message?: string, options?: ErrorOptions) {
    super(redactSecrets(message ?? ''), options);
  }
}

/** A parameter broke a rule of the spec; raised before any request is made. */
export class ParameterError extends CollectorError {
  override name = 'ParameterError';
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(`${parameter}: ${message}`);
  }
}
