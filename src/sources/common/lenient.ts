import { z } from 'zod';
import { toMs } from '../../time.js';

/**
 * Building blocks of the response schemas: strict about what becomes a point, lenient about the rest.
 *
 * What the real services send differs from the specs' examples in harmless ways (public clients of the same paths
 * show echoes as strings, `"code": "200"`, times without a zone, a numeric `status`). The rule of every schema:
 * - a value that becomes a point (count, ratio, time, key) must fit; when it does not, the response is a
 *   ResponseFormatError naming the field;
 * - a number sent as a string is accepted only when the string is unambiguous: counts and codes only as an exact
 *   integer (`"1234"`, no sign tricks, fractions, blanks or digits beyond 2^53), ratios only as a plain decimal.
 *   `"lots"`, `"12.5"` for a count or `""` stay errors — a count is never guessed;
 * - echoes of the request (filters, fields, limit, sort, granularity) and status words are not points: any JSON
 *   scalar is accepted (a list where the spec shows one), unknown keys are kept or stripped, never an error;
 * - times are ISO 8601 with `Z`, an offset or no zone (UTC then, see toMs).
 */

const EXACT_INTEGER = /^-?\d{1,16}$/;
const PLAIN_DECIMAL = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** The number an unambiguous text stands for, else undefined. */
function fromText(value: string, pattern: RegExp): number | undefined {
  if (!pattern.test(value)) return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/** Quoted, short: the value goes into the error message (which passes the secret redactor). */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** An integer that becomes a point (a count, a code, a unix time): a JSON integer or a string of exactly one. */
export const integer = z.unknown().transform((raw, ctx): number => {
  const n = typeof raw === 'string' ? fromText(raw, EXACT_INTEGER) : raw;
  if (typeof n === 'number' && Number.isSafeInteger(n)) return n;
  if (typeof n === 'number' && Number.isInteger(n)) return n; // a JSON number beyond 2^53: the sink judges its range
  ctx.addIssue({
    code: 'custom',
    message: `Expected number, an integer (or a string of one), received ${shown(raw)}`,
  });
  return z.NEVER;
});

/** A number that becomes a point (a ratio, a duration): a JSON number or a plain decimal string. */
export const decimal = z.unknown().transform((raw, ctx): number => {
  const n = typeof raw === 'string' ? fromText(raw, PLAIN_DECIMAL) : raw;
  if (typeof n === 'number' && Number.isFinite(n)) return n;
  ctx.addIssue({
    code: 'custom',
    message: `Expected number (or a decimal string), received ${shown(raw)}`,
  });
  return z.NEVER;
});

/** A time that becomes a point time: ISO 8601, UTC when no zone is given (the real statistic total sends none). */
export const isoTime = z.string().refine((s) => Number.isFinite(toMs(s)), 'not an ISO 8601 time');

/** A key that becomes a tag and whose format is not shown: text or a number, kept as sent (presentTags makes text). */
export const keyText = z.union([z.string(), z.number()]);

/** An echo of the request or a status word: never a point, so any scalar (or nothing) will do. */
export const echo = z.union([z.string(), z.number(), z.boolean(), z.null()]).optional();

/** An echoed list (`fields`): the list the spec shows, or the comma-separated text a service may send back. */
export const echoedList = z
  .union([z.array(z.string()), z.string().transform((s) => (s === '' ? [] : s.split(',').map((f) => f.trim())))])
  .optional();
