import { ParameterError } from '../errors.js';

/**
 * Each source owns its settings, as a Telegraf plug-in owns its config struct: `src/sources/<api>/settings.ts` exports
 * `schema` (the zod object of `jobs.<api>`: fields, defaults and the texts of docs/configuration.md), `check` (the
 * rules beyond shapes; a ParameterError names the field inside the section) and `reachMs`. config/schema.ts composes
 * the schemas, config/rules.ts runs the checks and adds the rules that span sources.
 */

/** Runs `check`; a ParameterError from it is re-labelled as the settings field `field`, its message kept. */
export function asField(field: string, check: () => unknown): void {
  try {
    check();
  } catch (err) {
    if (err instanceof ParameterError) throw new ParameterError(field, reason(err));
    throw err;
  }
}

/** The message of a ParameterError without its `parameter: ` prefix. */
export function reason(err: ParameterError): string {
  return err.message.replace(/^[^:]*: /, '');
}

/** Duplicates would collect (and count against the quota) twice; `accounts` also feeds sharding. */
export function unique(field: string, values: readonly string[]): void {
  const seen = new Set<string>();
  values.forEach((value, i) => {
    if (seen.has(value)) throw new ParameterError(`${field}.${i}`, `duplicate "${value}"`);
    seen.add(value);
  });
}
