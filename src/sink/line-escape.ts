/** How line protocol escapes names, tags and string fields, per the target's backslash dialect. */
import { UnrepresentableError } from './errors.js';
import type { BackslashDialect } from './types.js';

/** The characters each part escapes with a backslash; newlines cannot be written in names at all. */
export const MEASUREMENT_SPECIALS = /[, ]/g;
export const KEY_SPECIALS = /[, =]/g;
const NEEDS_WORK = /[, =\\\n]/;
const STRING_SPECIALS = /["\\]/;

/** Inside a quoted string field only `"` and `\` are escaped; a newline is fine there (the parser tracks the quotes).
 * */
export function escapeStringField(value: string): string {
  return STRING_SPECIALS.test(value) ? value.replace(/["\\]/g, '\\$&') : value;
}

export type NameEscaper = (part: string, text: string, specials: RegExp) => string;

/** Escapes a measurement, key or tag value for the target's backslash dialect. */
export function nameEscaper(dialect: BackslashDialect): NameEscaper {
  return (part, text, specials) => {
    if (!NEEDS_WORK.test(text)) return text;
    if (text.includes('\n'))
      throw new UnrepresentableError(part, text, 'line protocol cannot carry a newline in a name or tag');
    if (dialect === 'escaped') return text.replace(/\\/g, '\\\\').replace(specials, '\\$&');
    // verbatim: the Go parser treats `\` before a special as an escape and leaves every other backslash alone, so a
    // backslash before a special reads back right once the special is escaped (`a\,b` → `a\\,b`). A trailing one
    // would escape the separator that follows, and the server rejects the line: no exact form exists.
    if (text.endsWith('\\')) {
      throw new UnrepresentableError(
        part,
        text,
        'InfluxDB 1.x/2.x line protocol cannot end a name or tag with a backslash',
      );
    }
    return text.replace(specials, '\\$&');
  };
}
