/**
 * Retry-After (RFC 9110): delay-seconds (digits) or an HTTP-date (which names a weekday or month), as seconds from
 * `now` (ms since the epoch, on the clock that will wait them out). Anything else — "-5", "1e9", "soon" — is ignored
 * rather than guessed at (Date.parse reads "-5" as a year). Huge values are capped by the limiter (api.maxRetryAfter).
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  const text = value?.trim() ?? '';
  if (/^\d+$/.test(text)) return Number(text);
  if (!/[a-z]{3}/i.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}
