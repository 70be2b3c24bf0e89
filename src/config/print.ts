import { stringify } from 'yaml';
import { withoutUserinfo } from '../secrets.js';
import { durationText } from '../duration-text.js';
import { configJsonSchema, isDuration, variantFor, type JsonNode } from './json-schema.js';
import type { CollectorConfig } from './schema.js';

/** What a secret is printed as: the loader reads it back as a value, so the output never passes for a real one. */
export const REDACTED = '<redacted>';
/** The fields that hold secrets (api.token, api.password, sink.token, sink.password), whatever their section. */
const SECRET_KEY = /^(token|password)$/;

/**
 * The effective configuration (file, environment and defaults merged) as YAML that the loader reads back: durations
 * as text (`10m`, not 600000), secrets replaced by `<redacted>`, a URL's `user:password@` removed.
 */
export function renderEffectiveConfig(config: CollectorConfig): string {
  return stringify(readable(config, configJsonSchema()), { lineWidth: 0 });
}

/** `value` as the YAML a user would write for the JSON Schema `node`. */
function readable(value: unknown, node: JsonNode | undefined, key = ''): unknown {
  if (value === undefined || value === null) return value;
  if (typeof value === 'string' && SECRET_KEY.test(key)) return REDACTED;
  if (node && isDuration(node) && typeof value === 'number') return durationText(value);
  if (typeof value === 'string') return /^https?:\/\//.test(value) ? withoutUserinfo(value) : value;
  if (Array.isArray(value)) {
    const list = node?.type === 'array' ? node : (node?.anyOf ?? node?.oneOf)?.find((o) => o.type === 'array');
    return value.map((item) => readable(item, list?.items));
  }
  if (typeof value !== 'object' || !node) return value;
  const object = variantFor(node, value) ?? node;
  const fieldNode = (k: string): JsonNode | undefined => {
    const extra = object.additionalProperties;
    return object.properties?.[k] ?? (typeof extra === 'object' ? extra : undefined);
  };
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, readable(v, fieldNode(k), k)]));
}
