// The duration grammar alone, without the config schema's validation library: the CLI parses its options with it.

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
