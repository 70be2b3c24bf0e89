/**
 * The environment variables that set configuration fields (12-factor: Docker/Kubernetes secrets and settings). They
 * override the file; the command-line flags `--log-level`, `--log-format`, `--listen` override them in turn (the CLI
 * passes a flag on as its variable: src/cli/overrides.ts). Precedence: flag > environment > file > default.
 */
import { withoutLineEnds } from '../secrets.js';

export type Env = Record<string, string | undefined>;
type Obj = Record<string, unknown>;

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
const LOG_ENV: Record<string, string> = { LOG_LEVEL: 'level', LOG_FORMAT: 'format' };
/** `host:port` of the /healthz and /metrics listener: sets `http.host` and `http.port`. */
export const LISTEN_ENV = 'CDN_LISTEN';

/** Every environment variable `applyEnv` reads (docs/configuration.md finds what each one sets by probing it). */
export const CONFIG_ENV: readonly string[] = [
  'CDN_ACCOUNTS',
  ...Object.keys(API_ENV),
  ...Object.keys(SINK_ENV),
  ...Object.keys(LOG_ENV),
  LISTEN_ENV,
];

/** A value each variable accepts, for probing which fields it sets (a listen address must parse to set any). */
export function exampleValue(name: string): string {
  return name === LISTEN_ENV ? '127.0.0.1:9464' : `${name.toLowerCase()}-example`;
}

const V1_ONLY = new Set(['database', 'retentionPolicy', 'username', 'password']);
const V2_ONLY = new Set(['token', 'org', 'bucket']);

/**
 * `host:port`, `[ipv6]:port`, `:port` or `port` → the listener address; undefined when it is none of these. The
 * host is checked by the schema (`http.host`), the port range too.
 */
export function parseListen(text: string): { host?: string; port: number } | undefined {
  const m = /^(?:(?:\[([^\]]+)\]|([^:[\]]*)):)?(\d{1,5})$/.exec(text.trim());
  if (!m) return undefined;
  const host = m[1] ?? m[2];
  return { port: Number(m[3]), ...(host ? { host } : {}) };
}

/** Problems of variables whose text has a grammar of its own, each naming the variable and the field it sets. */
export function envProblems(env: Env): Array<{ field: string; message: string }> {
  const listen = env[LISTEN_ENV];
  if (listen && !parseListen(listen)) {
    return [
      {
        field: 'http.port',
        message: `${LISTEN_ENV} "${listen}" must be host:port, e.g. 127.0.0.1:9464, [::]:9464 or :9464`,
      },
    ];
  }
  return [];
}

/** Merges environment overrides into a raw (unvalidated) config object. */
export function applyEnv(raw: Obj, env: Env): Obj {
  const out: Obj = { ...raw };
  const api = section(out.api);
  for (const [name, key] of Object.entries(API_ENV)) {
    const value = variable(env, name);
    if (value) api[key] = value;
  }
  if (Object.keys(api).length > 0) out.api = api;
  if (env.CDN_ACCOUNTS)
    out.accounts =
      env.CDN_ACCOUNTS.trim() === 'auto'
        ? 'auto'
        : env.CDN_ACCOUNTS.split(',')
            .map((s) => s.trim())
            .filter(Boolean);

  const sink = section(out.sink);
  const given = Object.entries(SINK_ENV).filter(([name]) => variable(env, name));
  if (given.length > 0) {
    // With no sink in the file, INFLUX_DATABASE selects the v1 API, otherwise v2.
    if (sink.type === undefined) sink.type = env.INFLUX_DATABASE ? 'influx-v1' : 'influx-v2';
    for (const [name, key] of given) {
      const fits =
        sink.type === 'influx-v1'
          ? !V2_ONLY.has(key)
          : sink.type === 'influx-v2'
            ? !V1_ONLY.has(key)
            : sink.type === 'victoriametrics' && (key === 'url' || key === 'token');
      if (fits) sink[key] = variable(env, name);
    }
    out.sink = sink;
  }

  const log = section(out.log);
  for (const [name, key] of Object.entries(LOG_ENV)) if (env[name]) log[key] = env[name];
  if (Object.keys(log).length > 0) out.log = log;

  const listen = env[LISTEN_ENV] ? parseListen(env[LISTEN_ENV]) : undefined;
  if (listen) out.http = { ...section(out.http), ...listen };
  return out;
}

/**
 * Which config field each environment variable sets, found by applying each one to `raw` (whose `sink.type`, if any,
 * selects the variables that fit), so no second table can disagree with `applyEnv`. A field that several variables
 * set (`sink.type`, implied by any INFLUX_*) is none's own.
 */
export function envFields(raw: Obj): Map<string, string> {
  const before = leaves(applyEnv(raw, {}));
  const setters = new Map<string, string[]>();
  for (const name of CONFIG_ENV) {
    for (const [path, value] of leaves(applyEnv(raw, { [name]: exampleValue(name) }))) {
      if (before.get(path) !== value) setters.set(path, [...(setters.get(path) ?? []), name]);
    }
  }
  return new Map([...setters].filter(([, names]) => names.length === 1).map(([path, [name]]) => [path, name!]));
}

/**
 * Each variable with the fields it sets under any sink type, in the order of CONFIG_ENV: the table of `--help`, which
 * must not load the schema (test/cli/help-env.test.ts checks it against the config reference, which walks the schema).
 */
export function fieldsOfVariables(): Map<string, string[]> {
  const out = new Map(CONFIG_ENV.map((name) => [name, [] as string[]]));
  for (const raw of [{}, { sink: { type: 'influx-v2' } }, { sink: { type: 'influx-v1' } }]) {
    for (const [path, name] of envFields(raw)) if (!out.get(name)!.includes(path)) out.get(name)!.push(path);
  }
  return out;
}

/** Dotted path → JSON of each non-object value (a list is one value). */
function leaves(value: unknown, path = '', out = new Map<string, string>()): Map<string, string> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) leaves(v, path ? `${path}.${k}` : k, out);
  } else {
    out.set(path, JSON.stringify(value));
  }
  return out;
}

/**
 * A variable's value without the line end a secret mounted from a file keeps (`kubectl create secret --from-file`):
 * credentials, URLs and names are one line each.
 */
function variable(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined ? undefined : withoutLineEnds(value);
}

/** A copy of a section of the raw config, or a new one (a non-object is left for the schema to refuse). */
function section(value: unknown): Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...(value as Obj) } : {};
}
