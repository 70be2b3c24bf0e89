import { z } from 'zod';

const UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * `500ms`, `30s`, `10m`, `1h`, `7d` → milliseconds; undefined when the text is not such a duration. A bare number is
 * in `bareUnit` (command-line options take milliseconds); without one it is not a duration (config files name a unit).
 */
export function durationMs(text: string, bareUnit?: keyof typeof UNITS): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/.exec(text.trim());
  const unit = (m?.[2] as keyof typeof UNITS | undefined) ?? bareUnit;
  return m && unit ? Number(m[1]) * UNITS[unit] : undefined;
}

/** The shortest text of `ms` that `durationMs` reads back exactly: 60000 → `1m`, 1500 → `1500ms`. */
export function durationText(ms: number): string {
  const [unit, size] = Object.entries(UNITS).findLast(([, size]) => ms % size === 0) ?? ['ms', 1];
  return `${ms / size}${unit}`;
}

/** A config duration: a string such as `10m`, parsed to ms; must be positive. */
export const duration = z.union([z.string(), z.number()]).transform((given, ctx) => {
  const text = String(given);
  // YAML reads `timeout: 30` as a number; the unit it meant cannot be guessed, the fix can be shown.
  if (/^\d+(\.\d+)?$/.test(text.trim())) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: `${text.trim()} has no unit: write ${text.trim()}s (or ms, m, h, d)` });
    return z.NEVER;
  }
  const ms = durationMs(text);
  // Finite and safe: a numeral of hundreds of digits reads as Infinity, which no timer or deadline accepts.
  if (ms === undefined || !(ms > 0) || ms > Number.MAX_SAFE_INTEGER) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: `"${text}" is not a positive duration (e.g. 30s, 10m, 1h, 7d)` });
    return z.NEVER;
  }
  return ms;
});
