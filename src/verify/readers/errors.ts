import { CollectorError } from '../../errors.js';

/**
 * The database could not be read back (refused, unreachable, an answer not understood): the check cannot say whether
 * anything drifted. Never carries credentials (the message passes the redactor, and readers never quote URLs with
 * them).
 */
export class VerifyReadError extends CollectorError {
  override readonly code = 'CDN_ERR_VERIFY_READ';
}
