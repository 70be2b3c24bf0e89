import { z } from 'zod';
import { configSchema } from './schema.js';

/**
 * The configuration schema as JSON Schema (zod's own `z.toJSONSchema`), as a reader writes it: defaults and types of
 * the input, before durations are parsed. The reference (reference.ts) and the effective configuration (print.ts) read
 * this document, never zod's internals, so a zod upgrade cannot silently change what they show.
 */
export interface JsonNode {
  type?: string | string[];
  description?: string;
  default?: unknown;
  format?: string;
  /** Our own keyword, set through `.meta()`: how the field is written when JSON Schema has no word for it. */
  'x-type'?: string;
  properties?: Record<string, JsonNode>;
  required?: string[];
  additionalProperties?: boolean | JsonNode;
  propertyNames?: JsonNode;
  items?: JsonNode;
  minItems?: number;
  minLength?: number;
  anyOf?: JsonNode[];
  oneOf?: JsonNode[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

/** The `x-type` of a config duration (`30s`, `10m`): a string or number in JSON, parsed to milliseconds. */
export const DURATION_TYPE = 'duration';

/** A schema's JSON Schema for input; a zod type with no JSON Schema equivalent throws, naming its path. */
export function jsonSchemaOf(schema: z.ZodType): JsonNode {
  return z.toJSONSchema(schema, { io: 'input' }) as JsonNode;
}

let cached: JsonNode | undefined;
/** The configuration's JSON Schema (built once per process). */
export function configJsonSchema(): JsonNode {
  cached ??= jsonSchemaOf(configSchema);
  return cached;
}

export function isDuration(node: JsonNode): boolean {
  return node['x-type'] === DURATION_TYPE;
}

/** A discriminated union (`sink`): options that are objects, told apart by one property holding a constant. */
export function discriminatorOf(node: JsonNode): string | undefined {
  const options = node.oneOf ?? node.anyOf;
  if (!options || options.length === 0 || !options.every((o) => o.properties)) return undefined;
  return Object.keys(options[0]!.properties!).find((key) =>
    options.every((option) => option.properties![key]?.const !== undefined),
  );
}

/** The option of a discriminated union a value takes, by its discriminator's value. */
export function variantFor(node: JsonNode, value: unknown): JsonNode | undefined {
  const key = discriminatorOf(node);
  if (key === undefined || typeof value !== 'object' || value === null) return undefined;
  const given = (value as Record<string, unknown>)[key];
  return (node.oneOf ?? node.anyOf)!.find((option) => option.properties![key]!.const === given);
}
