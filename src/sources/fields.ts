import { ParameterError } from '../http/errors.js';

/** The `fields` parameter of the statistics APIs: a non-empty subset of `allowed`, duplicates dropped. */
export function checkFieldList<T extends string>(fields: readonly string[], allowed: readonly T[]): T[] {
  if (fields.length === 0) throw new ParameterError('fields', 'must name at least one field (omit it for all)');
  for (const f of fields) {
    if (!(allowed as readonly string[]).includes(f)) {
      throw new ParameterError('fields', `must be among ${allowed.join(', ')}, got "${f}"`);
    }
  }
  return [...new Set(fields)] as T[];
}
