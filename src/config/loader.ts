import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import type { ZodIssue } from 'zod';
import { CollectorError } from '../errors.js';
import { registerConfigSecrets } from '../secrets.js';
import { applyEnv, envFields, envProblems, type Env } from './env.js';
import { interpolateEnv } from './interpolate.js';
import { configSchema, withDependentDefaults, type CollectorConfig } from './schema.js';

// The environment mapping lives in src/config/env.ts; re-exported for the loader's callers.
export { applyEnv, CONFIG_ENV } from './env.js';

type Obj = Record<string, unknown>;

/** One thing wrong in a configuration: the field's dotted path (e.g. `jobs.metrics.window`) and what is wrong. */
export interface ConfigProblem {
  field: string;
  message: string;
}

/**
 * The configuration is invalid; commands exit 2. It carries every problem found, so one run shows them all; `field`
 * is the first one's.
 */
export class ConfigError extends CollectorError {
  override readonly code = 'CDN_ERR_CONFIG';
  readonly problems: ConfigProblem[];
  readonly field: string;
  constructor(field: string, message: string);
  constructor(problems: ConfigProblem[]);
  constructor(fieldOrProblems: string | ConfigProblem[], message = '') {
    const problems = typeof fieldOrProblems === 'string' ? [{ field: fieldOrProblems, message }] : fieldOrProblems;
    super(
      problems.length === 1
        ? `config ${problems[0]!.field}: ${problems[0]!.message}`
        : `config: ${problems.length} problems\n${problems.map((p) => `  ${p.field}: ${p.message}`).join('\n')}`,
    );
    this.problems = problems;
    this.field = problems[0]!.field;
  }
}

/** What a missing section needs, when its fields can come from the environment. */
const MISSING_SECTION: Record<string, string> = {
  api: 'required: an api section, or CDN_BASE_URL and CDN_TOKEN (or CDN_TOKEN_FILE, or CDN_USERNAME with CDN_PASSWORD)',
  sink:
    'required: a sink section, or INFLUX_URL with INFLUX_TOKEN, INFLUX_ORG, INFLUX_BUCKET (InfluxDB 2.x) or with ' +
    'INFLUX_DATABASE (InfluxDB 1.x)',
};

/**
 * Validates a raw config object (with the environment's overrides); every problem is reported, naming its field, after
 * the `earlier` ones (the file's `${…}` that could not be replaced).
 */
export function parseConfig(
  raw: unknown,
  env: Env = process.env,
  earlier: readonly ConfigProblem[] = [],
): CollectorConfig {
  const merged = applyEnv(isObj(raw) ? raw : {}, env);
  // Before validation: its errors quote values, which must not show a secret pasted into the wrong field.
  registerConfigSecrets(merged);
  const result = configSchema.safeParse(merged);
  const problems = [...earlier, ...envProblems(env)];
  if (!result.success) {
    // Which variable sets which field, worked out once for all the issues (it applies every variable in turn).
    const fields = envFields(merged);
    problems.push(...result.error.issues.map((issue) => problemOf(issue, merged, env, fields)));
  }
  // One problem per field: what zod finds after the first (a bound checked on a value it could not read) follows from
  // it.
  const firstPerField = problems.filter((p, i) => problems.findIndex((q) => q.field === p.field) === i);
  if (firstPerField.length > 0 || !result.success) throw new ConfigError(firstPerField);
  return withDependentDefaults(result.data);
}

/** A zod issue in the reader's words: `required` for a missing field, and the environment variable that sets it. */
function problemOf(issue: ZodIssue, merged: Obj, env: Env, fields: Map<string, string>): ConfigProblem {
  const path = issue.path.map(String);
  const field = path.length > 0 ? path.join('.') : '(root)';
  const missing = valueAt(merged, path) === undefined;
  if (missing && MISSING_SECTION[field]) return { field, message: MISSING_SECTION[field] };
  let message = issue.message;
  if (missing && (issue.code === 'invalid_type' || issue.code === 'invalid_union')) message = 'required';
  const options = issue.code === 'invalid_union' && 'options' in issue ? issue.options : undefined;
  if (missing && options) message = `required: one of ${options.map(String).join(', ')}`;
  const variable = fields.get(field);
  if (variable && !message.includes(variable))
    message += setsField(variable, env, merged, path) ? ` (from ${variable})` : missing ? ` (set ${variable})` : '';
  return { field, message };
}

/** Whether `variable`, as given in `env`, is what set the field at `path` (an unparsable one sets nothing). */
function setsField(variable: string, env: Env, merged: Obj, path: Array<string | number>): boolean {
  const sinkType = isObj(merged.sink) ? merged.sink.type : undefined;
  const alone = applyEnv(sinkType === undefined ? {} : { sink: { type: sinkType } }, { [variable]: env[variable] });
  return env[variable] !== undefined && valueAt(alone, path) !== undefined;
}

function valueAt(value: unknown, path: Array<string | number>): unknown {
  return path.reduce<unknown>(
    (node, key) => (typeof node === 'object' && node !== null ? (node as Obj)[key] : undefined),
    value,
  );
}

/** The configuration of a YAML file with the environment's overrides; without a file, of the environment alone. */
export function loadConfigFile(path: string | undefined, env: Env = process.env): CollectorConfig {
  if (path === undefined) return parseConfig({}, env);
  const { raw, unresolved } = readConfigDocument(path, env);
  return parseConfig(raw, env, unresolved);
}

/**
 * The accounts of a configuration alone (`config --shards`): the file's and `CDN_ACCOUNTS`, validated as the whole
 * configuration validates them, without asking for what the split does not need (a token, the sink).
 */
export function loadAccounts(path: string | undefined, env: Env = process.env): CollectorConfig['accounts'] {
  const { raw, unresolved } = path === undefined ? { raw: {}, unresolved: [] } : readConfigDocument(path, env);
  const merged = applyEnv(raw, env);
  const result = configSchema.shape.accounts.safeParse(merged.accounts);
  const problems = unresolved.filter((p) => p.field === 'accounts' || p.field.startsWith('accounts.'));
  if (!result.success) {
    const issue = result.error.issues[0]!;
    problems.push(problemOf({ ...issue, path: ['accounts', ...issue.path] }, merged, env, envFields(merged)));
  }
  if (problems.length > 0 || !result.success) throw new ConfigError(problems);
  return result.data;
}

/**
 * A YAML config file as written (its `${VAR}` references resolved), not yet checked: for a command that needs one
 * field of a config whose other fields it does not use (`api` and `dvr` read only `state.dir`).
 */
export function readConfigDocument(path: string, env: Env = process.env): { raw: Obj; unresolved: ConfigProblem[] } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError('(file)', `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let raw: unknown;
  let unresolved: ConfigProblem[];
  try {
    const doc = parseDocument(text);
    if (doc.errors[0]) throw doc.errors[0];
    unresolved = interpolateEnv(doc, env);
    raw = doc.toJS(); // throws on an alias of no anchor
  } catch (err) {
    throw new ConfigError('(file)', `${path} is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (raw !== null && raw !== undefined && !isObj(raw)) throw new ConfigError('(root)', 'must be a mapping');
  return { raw: (raw as Obj | null | undefined) ?? {}, unresolved };
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
