import { DAY, HOUR } from '../../src/time.js';

/**
 * The latest `hours` whole hours that are final (ended two hours ago) and lie inside one UTC day, not ending at its
 * midnight: a range that reaches a day's end also completes that day's daily windows (cdn_users_daily), so a test
 * counting jobs or checkpoints would depend on the time of day it runs at.
 */
export function finalHoursWithinOneDay(hours: number, now = Date.now()): { from: number; to: number } {
  if (hours > 23) throw new RangeError(`${hours} hours do not fit inside one day before its last hour`);
  let to = Math.floor((now - 2 * HOUR) / HOUR) * HOUR;
  if (Math.floor((to - hours * HOUR) / DAY) !== Math.floor(to / DAY))
    to = Math.floor((to - hours * HOUR) / DAY) * DAY + 23 * HOUR;
  return { from: to - hours * HOUR, to };
}
