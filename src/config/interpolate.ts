/**
 * `${NAME}` in the values of the YAML file, replaced by the environment variable, as Telegraf does: strictly. An unset
 * variable, a bad name or an unclosed `${` is a problem naming the field, never the text taken literally (a state.dir
 * of `${DATA}/state` would otherwise be a directory of that name). `$${` writes a literal `${`. An unquoted value that
 * is one reference alone takes the YAML type of the variable's text (`port: ${PORT}` is a number). Keys and comments
 * are not read.
 */
import { isMap, isScalar, isSeq, parse as parseYaml, Scalar, type Document } from 'yaml';
import { withoutLineEnds } from '../secrets.js';
import type { Env } from './env.js';

/** A field whose `${…}` could not be replaced, and why (the loader's ConfigProblem). */
export interface InterpolationProblem {
  field: string;
  message: string;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ALONE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** Replaces the references in every value of `doc`, in place; returns the problems (none: all replaced). */
export function interpolateEnv(doc: Document, env: Env): InterpolationProblem[] {
  const problems: InterpolationProblem[] = [];
  const walk = (node: unknown, path: Array<string | number>): void => {
    if (isMap(node))
      for (const pair of node.items) walk(pair.value, [...path, isScalar(pair.key) ? String(pair.key.value) : '?']);
    else if (isSeq(node)) node.items.forEach((item, i) => walk(item, [...path, i]));
    else if (isScalar(node) && typeof node.value === 'string' && node.value.includes('${')) {
      const field = path.length > 0 ? path.join('.') : '(root)';
      const text = node.value;
      const value = substitute(text, env, (message) => problems.push({ field, message }));
      node.value = ALONE.test(text) && node.type === Scalar.PLAIN ? typed(value) : value;
    }
  };
  walk(doc.contents, []);
  return problems;
}

/** `text` with its references replaced; each one that cannot be is reported and left as written. */
function substitute(text: string, env: Env, problem: (message: string) => void): string {
  const reference = /\$\$\{|\$\{/g;
  let out = '';
  let from = 0;
  for (let m = reference.exec(text); m; m = reference.exec(text)) {
    out += text.slice(from, m.index);
    from = reference.lastIndex;
    if (m[0] === '$${') {
      out += '${';
      continue;
    }
    const end = text.indexOf('}', from);
    const name = end < 0 ? undefined : text.slice(from, end);
    if (name === undefined || !NAME.test(name)) {
      problem(
        `${end < 0 ? 'unclosed ${' : `\${${name}} is not a variable name`}: write \${NAME} (letters, digits, _), or ` +
          `$\${ for a literal \${`,
      );
    } else if (env[name] === undefined) {
      problem(`\${${name}}: environment variable ${name} is not set`);
    } else {
      // A secret mounted from a file keeps its line end: no scalar of the config wants it.
      out += withoutLineEnds(env[name]);
      from = end + 1;
      reference.lastIndex = from;
      continue;
    }
    out += m[0];
  }
  return out + text.slice(from);
}

/** A number or boolean when the variable's text is one in YAML; otherwise the text. */
function typed(text: string): unknown {
  try {
    const value: unknown = parseYaml(text);
    return typeof value === 'number' || typeof value === 'boolean' ? value : text;
  } catch {
    return text;
  }
}
