import { ParameterError } from '../../http/errors.js';

export const DVR_PREFIX = '/app/dvr-net/v1';

/**
 * `/app/dvr-net/v1/<account>/streams/<stream>`. A stream name may contain `/` (spec), which stays literal; every
 * other character is percent-encoded per segment. `.` and `..` segments are refused: URL parsers collapse them
 * (even encoded as `%2E`), so such a name could only ever reach another path.
 */
export function dvrStreamPath(account: string, stream: string): string {
  requireName('account', account);
  requireName('stream', stream);
  const segments = stream.split('/');
  if (segments.some((s) => s === '.' || s === '..')) {
    throw new ParameterError('stream', 'path segments "." and ".." cannot be addressed');
  }
  return `${DVR_PREFIX}/${encodeURIComponent(account)}/streams/${segments.map(encodeURIComponent).join('/')}`;
}

function requireName(parameter: string, value: string): void {
  if (typeof value !== 'string' || value.length === 0) throw new ParameterError(parameter, 'must be a non-empty string');
}
