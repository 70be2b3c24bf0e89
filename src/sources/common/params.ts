import { ParameterError } from '../../errors.js';
import { isWholeMinute, toMs, type TimeInput } from '../../time.js';

/** Parameter checks shared by the clients (the time parameters by all three query APIs, the rest by the statistics
 * APIs). */

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

/** So that `{language: undefined}` in a query does not erase the client's default language. */
export function withoutUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** `start`/`end` of the metrics and statistics APIs: required, a valid time, whole minutes (the spec: seconds always
 * 00). */
export function checkMinuteTime(value: TimeInput | undefined, name: 'start' | 'end'): number {
  if (value === undefined || value === null || value === '') throw new ParameterError(name, 'is required');
  const ms = toMs(value);
  if (!Number.isFinite(ms)) throw new ParameterError(name, `is not a valid time: ${String(value)}`);
  if (!isWholeMinute(ms)) throw new ParameterError(name, 'must be at minute precision (seconds and milliseconds 0)');
  return ms;
}
