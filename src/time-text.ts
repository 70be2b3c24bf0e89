/**
 * The one grammar of times typed on the command line (`backfill`, `verify`, `dvr delete` --from/--to):
 *
 *     time    = iso | seconds | anchor [offset] | offset
 *     iso     = 2026-11-23 | 2026-11-23T10:00[:00[.000]] with Z, ±hh:mm or no zone (UTC)   (parseIsoTime)
 *     seconds = unix seconds, exactly 10 digits (1795658400)
 *     anchor  = now | today | yesterday
 *     offset  = (+|-) digits unit, unit = s | m | h | d   (m is minutes)
 *
 * `now` is the current time to the second; `today` is 00:00 UTC of the current UTC day, `yesterday` the 00:00 UTC
 * before it; a bare offset counts from now (`-7d` = `now-7d`). Nothing else: JavaScript's date parser turns `-5`,
 * `Nov 23` or `01/11/2026` into some date, and a guessed start can delete the wrong DVR.
 */
import { durationMs } from './duration-text.js';
import { DAY, parseIsoTime } from './time.js';

/** The forms, for errors. */
export const TIME_FORMS = 'ISO 8601 (UTC when no zone), unix seconds, now, today, yesterday, now-24h, -7d, today+6h';

/** The grammar in the words of a command's --help. */
export const TIME_HELP = [
  'Times (--from, --to): ISO 8601 (2026-11-23, 2026-11-23T10:00Z, …+03:00; UTC when no zone), unix seconds',
  '(10 digits), now (to the second), today (00:00 UTC of the current UTC day), yesterday (00:00 UTC the day',
  'before), one of these plus or minus an amount in s, m (minutes), h or d (now-24h, today+6h), or the amount',
  'alone, from now (-7d, also --from=-7d).',
].join('\n');

const RELATIVE = /^(now|today|yesterday)?(?:([+-])(\d+)([smhd]))?$/;
const SECONDS_DIGITS = 10;
/** The furthest a Date reaches either side of 1970 (ms): beyond it a time has no ISO text. */
export const MAX_DATE_MS = 8.64e15;
const MILLISECONDS_DIGITS = 13;

/** Epoch ms of `text` read at `now` (epoch ms), or why it is not a time (a phrase to follow the option's name). */
export function parseTimeText(text: string, now: number): { ms: number } | { error: string } {
  if (/^\d+$/.test(text)) return unixSeconds(text);
  const iso = parseIsoTime(text);
  if (iso !== undefined) return { ms: iso };
  const m = RELATIVE.exec(text);
  if (m && (m[1] !== undefined || m[2] !== undefined)) {
    const today = Math.floor(now / DAY) * DAY;
    const anchor = m[1] === 'today' ? today : m[1] === 'yesterday' ? today - DAY : Math.floor(now / 1000) * 1000;
    const offset = m[2] === undefined ? 0 : durationMs(`${m[3]}${m[4]}`)!;
    const ms = anchor + (m[2] === '-' ? -offset : offset);
    // A Date holds ±8.64e15 ms; further out the time has no ISO text (and no CDN has data there).
    return Math.abs(ms) <= MAX_DATE_MS ? { ms } : { error: `is out of range: ${text}` };
  }
  return { error: `must be a time: ${TIME_FORMS}` };
}

function unixSeconds(digits: string): { ms: number } | { error: string } {
  if (digits.length === SECONDS_DIGITS) return { ms: Number(digits) * 1000 };
  if (digits.length === MILLISECONDS_DIGITS) {
    const seconds = digits.slice(0, SECONDS_DIGITS);
    const at = new Date(Number(seconds) * 1000).toISOString().replace('.000Z', 'Z');
    return { error: `looks like milliseconds: unix seconds have 10 digits (${seconds} is ${at})` };
  }
  return { error: 'is a number but not unix seconds, which have 10 digits (e.g. 1767225600)' };
}
