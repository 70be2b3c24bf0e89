import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { CollectorError } from '../errors.js';
import { registerConfigSecrets } from '../secrets.js';
import { configSchema, type CollectorConfig } from './schema.js';

/** The configuration is invalid; `field` is its dotted path (e.g. `jobs.metrics.window`). Commands exit 2. */
export class ConfigError extends CollectorError {
  override name = 'ConfigError';
  override readonly code = 'CDN_ERR_CONFIG';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`config ${field}: ${message}`);
  }
}

type Env = Record<string, string | undefined>;
type Obj = Record<string, unknown>;

/** Secrets and deployment settings that environment variables override (12-factor; Docker/Kubernetes secrets). */
const API_ENV: Record<string, string> = {
  CDN_BASE_URL: 'baseUrl',
  CDN_TOKEN: 'token',
  CDN_TOKEN_FILE: 'tokenFile',
  CDN_USERNAME: 'username',
  CDN_PASSWORD: 'password',
  CDN_PASSWORD_FILE: 'passwordFile',
};
const SINK_ENV: Record<string, string> = {
  INFLUX_URL: 'url',
  INFLUX_TOKEN: 'token',
  INFLUX_ORG: 'org',
  INFLUX_BUCKET: 'bucket',
  INFLUX_DATABASE: 'database',
  INFLUX_RETENTION_POLICY: 'retentionPolicy',
  INFLUX_USERNAME: 'username',
  INFLUX_PASSWORD: 'password',
};
/** Every environment variable `applyEnv` reads (docs/configuration.md finds what each one sets by probing it). */
export const CONFIG_ENV: readonly string[] = [...Object.keys(API_ENV), 'CDN_ACCOUNTS', ...Object.keys(SINK_ENV)];
const V1_ONLY = new Set(['database', 'retentionPolicy', 'username', 'password']);
const V2_ONLY = new Set(['token', 'org', 'bucket']);

/** Merges environment overrides into a raw (unvalidated) config object. */
export function applyEnv(raw: Obj, env: Env): Obj {
  const out: Obj = { ...raw };
  const api: Obj = { ...(isObj(out.api) ? out.api : {}) };
  for (const [name, key] of Object.entries(API_ENV)) if (env[name]) api[key] = env[name];
  if (Object.keys(api).length > 0) out.api = api;
  if (env.CDN_ACCOUNTS) out.accounts = env.CDN_ACCOUNTS.trim() === 'auto' ? 'auto' : env.CDN_ACCOUNTS.split(',').map((s) => s.trim()).filter(Boolean);

  const sink: Obj = { ...(isObj(out.sink) ? out.sink : {}) };
  const given = Object.entries(SINK_ENV).filter(([name]) => env[name]);
  if (given.length > 0) {
    // With no sink in the file, INFLUX_DATABASE selects the v1 API, otherwise v2.
    if (sink.type === undefined) sink.type = env.INFLUX_DATABASE ? 'influx-v1' : 'influx-v2';
    for (const [name, key] of given) {
      const fits = sink.type === 'influx-v1' ? !V2_ONLY.has(key) : sink.type === 'influx-v2' ? !V1_ONLY.has(key) : false;
      if (fits) sink[key] = env[name];
    }
    out.sink = sink;
  }
  return out;
}

/** Validates a raw config object; the first problem is reported with its field path. */
export function parseConfig(raw: unknown, env: Env = process.env): CollectorConfig {
  const merged = applyEnv(isObj(raw) ? raw : {}, env);
  // Before validation: its errors quote values, which must not show a secret pasted into the wrong field.
  registerConfigSecrets(merged);
  const result = configSchema.safeParse(merged);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const field = issue.path.length > 0 ? issue.path.join('.') : '(root)';
    const keys = issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : '';
    throw new ConfigError(field, `${issue.message}${keys}`);
  }
  return result.data;
}

export function loadConfigFile(path: string, env: Env = process.env): CollectorConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError('(file)', `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new ConfigError('(file)', `${path} is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (raw !== null && raw !== undefined && !isObj(raw)) throw new ConfigError('(root)', 'must be a mapping');
  return parseConfig(raw ?? {}, env);
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
