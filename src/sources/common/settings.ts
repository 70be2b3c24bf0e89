import { ParameterError } from '../../errors.js';

/**
 * Helpers of the sources' settings modules (what one holds: SourceSettings in source.ts). config/schema.ts composes
 * their schemas from the list of sources, config/rules.ts runs their checks and adds the rules that span sources.
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
