import { ParameterError } from '../../errors.js';
import { APIS } from '../../spec/apis.js';

/**
 * `/app/dvr-net/v1/<account>/streams/<stream>`. A stream name may contain `/` (spec), which stays literal; every
 * other character is percent-encoded per segment. `.` and `..` segments are refused, in the account as in the stream:
 * URL parsers collapse them (even encoded as `%2E`), so such a name could only ever reach another path — with the
 * token (`dvr get .. live/main` went to `/v1/../streams/…`). Empty segments (`live//main`, `/live`) are refused too:
 * they name no stream and servers normalise them differently.
 */
export function dvrStreamPath(account: string, stream: string): string {
  requireName('account', account);
  requireName('stream', stream);
  requireSegment('account', account);
  const segments = stream.split('/');
  segments.forEach((segment) => requireSegment('stream', segment));
  return `${APIS.dvr.prefix}/${encodeURIComponent(account)}/streams/${segments.map(encodeURIComponent).join('/')}`;
}

function requireName(parameter: string, value: string): void {
  if (typeof value !== 'string' || value.length === 0)
    throw new ParameterError(parameter, 'must be a non-empty string');
}

function requireSegment(parameter: string, segment: string): void {
  if (segment === '.' || segment === '..')
    throw new ParameterError(parameter, 'path segments "." and ".." cannot be addressed');
  if (segment.length === 0)
    throw new ParameterError(parameter, 'must not have empty path segments (leading, trailing or double /)');
}
