import { stringify } from 'yaml';
import { z, type ZodTypeAny } from 'zod';
import { withoutUserinfo } from '../secrets.js';
import { durationText } from './fields/duration.js';
import { isDuration, unwrap } from './reference.js';
import { configSchema, type CollectorConfig } from './schema.js';

/** What a secret is printed as: the loader reads it back as a value, so the output never passes for a real one. */
export const REDACTED = '<redacted>';
/** The fields that hold secrets (api.token, api.password, sink.token, sink.password), whatever their section. */
const SECRET_KEY = /^(token|password)$/;

/**
 * The effective configuration (file, environment and defaults merged) as YAML that the loader reads back: durations
 * as text (`10m`, not 600000), secrets replaced by `<redacted>`, a URL's `user:password@` removed.
 */
export function renderEffectiveConfig(config: CollectorConfig): string {
  return stringify(readable(config, configSchema), { lineWidth: 0 });
}

/** `value` as the YAML a user would write for `schema`. */
function readable(value: unknown, schema: ZodTypeAny, key = ''): unknown {
  if (value === undefined || value === null) return value;
  if (typeof value === 'string' && SECRET_KEY.test(key)) return REDACTED;
  const { inner } = unwrap(schema);
  if (isDuration(inner) && typeof value === 'number') return durationText(value);
  if (typeof value === 'string') return /^https?:\/\//.test(value) ? withoutUserinfo(value) : value;
  if (inner instanceof z.ZodArray && Array.isArray(value))
    return value.map((item) => readable(item, inner._def.type as ZodTypeAny));
  if (inner instanceof z.ZodUnion && Array.isArray(value)) {
    const list = (inner._def.options as ZodTypeAny[]).map((o) => unwrap(o).inner).find((o) => o instanceof z.ZodArray);
    return list ? readable(value, list) : value;
  }
  if (typeof value !== 'object') return value;
  const fieldSchema = (k: string): ZodTypeAny => {
    if (inner instanceof z.ZodObject) return (inner.shape as Record<string, ZodTypeAny>)[k] ?? z.unknown();
    if (inner instanceof z.ZodRecord) return inner._def.valueType as ZodTypeAny;
    if (inner instanceof z.ZodDiscriminatedUnion) {
      const option = (inner.optionsMap as Map<unknown, z.AnyZodObject>).get(
        (value as Record<string, unknown>)[inner.discriminator],
      );
      return (option?.shape as Record<string, ZodTypeAny> | undefined)?.[k] ?? z.unknown();
    }
    return z.unknown();
  };
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, readable(v, fieldSchema(k), k)]));
}
