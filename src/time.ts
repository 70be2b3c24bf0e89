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

export function floorTo(ms: number, step: number): number {
  return Math.floor(ms / step) * step;
}

export type TimeInput = Date | number | string;

/** Accepts a Date, epoch ms or an ISO 8601 string (no zone = UTC); returns epoch ms or NaN. */
export function toMs(t: TimeInput): number {
  if (t instanceof Date) return t.getTime();
  if (typeof t === 'number') return t;
  const hasZone = /(Z|[+-]\d\d:?\d\d)$/i.test(t);
  return Date.parse(hasZone ? t : `${t}Z`);
}
