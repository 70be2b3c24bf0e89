/** Time helpers shared by clients, planner and simulator. All times are UTC epoch milliseconds. */
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DDThh:mm:00` in UTC, the format of the metrics API (no zone suffix). */
export function formatMinute(ms: number): string {
  const d = new Date(ms);
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  );
}

/** `YYYY-MM-DDThh:mm:00Z`: the statistics APIs accept an explicit UTC suffix, which leaves no doubt about the zone. */
export function formatMinuteUtc(ms: number): string {
  return `${formatMinute(ms)}Z`;
}

export function isWholeMinute(ms: number): boolean {
  return ms % MINUTE === 0;
}

/** The multiple of `step` at or before `ms`: the start of the aligned window that contains `ms`. */
export function floorTo(ms: number, step: number): number {
  return Math.floor(ms / step) * step;
}

export type TimeInput = Date | number | string;

/**
 * `YYYY-MM-DDThh:mm[:ss[.fff]]` with `Z`, an offset (`+03:00`, `+0300`) or no zone (= UTC), or a bare date
 * `YYYY-MM-DD` (midnight UTC). Nothing else: JavaScript's own parser turns `-5`, `Nov 23` or `01/11/2026` into some
 * date, and a time option that guesses can delete the wrong DVR.
 */
const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):?(\d{2}))?)?$/i;

/** Epoch ms of a strict ISO 8601 time (see ISO_TIME), or undefined. Out-of-range fields (Feb 30, 25:00) are refused. */
export function parseIsoTime(text: string): number | undefined {
  const m = ISO_TIME.exec(text.trim());
  if (!m) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m
    .slice(1, 7)
    .map((v) => (v === undefined ? undefined : Number(v)));
  const fraction = m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
  const utc = Date.UTC(year!, month! - 1, day!, hour, minute, second);
  // Date.UTC rolls Feb 30 over into March: a field out of range shows up as a different date.
  const d = new Date(utc);
  if (
    d.getUTCFullYear() !== year ||
    d.getUTCMonth() !== month! - 1 ||
    d.getUTCDate() !== day ||
    d.getUTCHours() !== hour
  ) {
    return undefined;
  }
  if (minute > 59 || second > 59) return undefined;
  const offsetH = Number(m[10] ?? 0);
  const offsetM = Number(m[11] ?? 0);
  if (offsetH > 23 || offsetM > 59) return undefined;
  const offset = (m[9] === '-' ? -1 : 1) * (offsetH * HOUR + offsetM * MINUTE);
  return utc + Math.floor(fraction) - offset;
}

/** Accepts a Date, epoch ms or a strict ISO 8601 string (see parseIsoTime; no zone = UTC); returns epoch ms or NaN. */
export function toMs(t: TimeInput): number {
  if (t instanceof Date) return t.getTime();
  if (typeof t === 'number') return t;
  return typeof t === 'string' ? (parseIsoTime(t) ?? Number.NaN) : Number.NaN;
}
