import { z } from 'zod';
import { durationMs } from '../../duration-text.js';

export { durationMs, durationText } from '../../duration-text.js';

/** A config duration: a string such as `10m`, parsed to ms; must be positive. */
export const duration = z
  .union([z.string(), z.number()])
  .transform((given, ctx) => {
    const text = String(given);
    // YAML reads `timeout: 30` as a number; the unit it meant cannot be guessed, the fix can be shown.
    if (/^\d+(\.\d+)?$/.test(text.trim())) {
      ctx.addIssue({
        code: 'custom',
        message: `${text.trim()} has no unit: write ${text.trim()}s (or ms, m, h, d)`,
      });
      return z.NEVER;
    }
    const ms = durationMs(text);
    // Finite and safe: a numeral of hundreds of digits reads as Infinity, which no timer or deadline accepts.
    if (ms === undefined || !(ms > 0) || ms > Number.MAX_SAFE_INTEGER) {
      ctx.addIssue({
        code: 'custom',
        message: `"${text}" is not a positive duration (e.g. 30s, 10m, 1h, 7d)`,
      });
      return z.NEVER;
    }
    return ms;
  })
  // JSON Schema sees a string or a number; the reference calls it a duration (json-schema.ts reads this keyword).
  .meta({ 'x-type': 'duration' });
