/**
 * A small InfluxQL parser for the statements the provisioned dashboards use (SELECT with expressions, functions,
 * aliases, subqueries, WHERE, GROUP BY, fill/ORDER/LIMIT; SHOW TAG VALUES), plus Grafana's macros and variables.
 * It extracts which measurement, tags and fields a query names, so the dashboard test can hold them against
 * src/schema/schema.ts. Anything outside that subset is a parse error (better a failing test than a silently
 * unchecked query).
 */

type TokenKind = 'ident' | 'string' | 'number' | 'regex' | 'var' | 'op' | 'eof';
interface Token {
  kind: TokenKind;
  text: string;
  /** Identifiers: true when written in double quotes (never a keyword then). */
  quoted?: boolean;
}

export interface SelectQuery {
  kind: 'select';
  source: { measurement: string } | { subquery: SelectQuery };
  /** Identifiers named in the select list (fields, or tags selected alongside fields). */
  selected: string[];
  /** Output column names: aliases, else the function name (`mean`), else the identifier itself. */
  columns: string[];
  /** Identifiers named in WHERE (besides `time`). */
  whereRefs: string[];
  /** `"key" = 'value'` comparisons in WHERE (for tag values such as kind and grouping). */
  equals: Array<{ key: string; value: string }>;
  /** Tags of GROUP BY (without time()). */
  groupBy: string[];
  /** Functions of the select list applied directly to a field, e.g. `sum("traffic")` → { fn: 'sum', field: 'traffic' }.
   * */
  calls: Array<{ fn: string; field: string }>;
}

export interface ShowTagValuesQuery {
  kind: 'show-tag-values';
  measurement?: string;
  key: string;
  whereRefs: string[];
}

export type Query = SelectQuery | ShowTagValuesQuery;

export class InfluxQLError extends Error {
  override name = 'InfluxQLError';
}

const KEYWORDS = new Set([
  'select',
  'from',
  'where',
  'group',
  'by',
  'and',
  'or',
  'as',
  'fill',
  'order',
  'limit',
  'offset',
  'slimit',
  'soffset',
  'tz',
  'show',
  'tag',
  'values',
  'with',
  'key',
  'in',
  'desc',
  'asc',
  'null',
  'none',
  'previous',
  'linear',
  'true',
  'false',
]);
const OPERATORS = [
  '=~',
  '!~',
  '!=',
  '<>',
  '<=',
  '>=',
  '::',
  '=',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '(',
  ')',
  ',',
  '.',
];
const COMPARISONS = ['=', '!=', '<>', '<', '>', '<=', '>=', '=~', '!~'];
const DURATION = /^\d+(ns|u|µ|ms|s|m|h|d|w)/;

/** Grafana's variables: `$name`, `${name}`, `${name:format}`, `[[name]]`. */
const VARIABLE = /^(\$\{[^}]+\}|\$[A-Za-z_][A-Za-z0-9_]*|\[\[[^\]]+\]\])/;

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const ws = /^\s+/.exec(rest);
    if (ws) {
      i += ws[0].length;
      continue;
    }
    const prev = tokens[tokens.length - 1];
    if (rest[0] === '/' && prev?.kind === 'op' && (prev.text === '=~' || prev.text === '!~')) {
      const m = /^\/((?:\\.|[^/\\])*)\//.exec(rest);
      if (!m) throw new InfluxQLError(`unterminated regex at ${i}: ${rest.slice(0, 30)}`);
      tokens.push({ kind: 'regex', text: m[1]! });
      i += m[0].length;
      continue;
    }
    const quote =
      rest[0] === '"' ? /^"((?:\\.|[^"\\])*)"/.exec(rest) : rest[0] === "'" ? /^'((?:\\.|[^'\\])*)'/.exec(rest) : null;
    if (quote) {
      const value = quote[1]!.replace(/\\(.)/g, '$1');
      tokens.push(rest[0] === '"' ? { kind: 'ident', text: value, quoted: true } : { kind: 'string', text: value });
      i += quote[0].length;
      continue;
    }
    if (rest[0] === '"' || rest[0] === "'") throw new InfluxQLError(`unterminated quote at ${i}`);
    const variable = VARIABLE.exec(rest);
    if (variable) {
      tokens.push({ kind: 'var', text: variable[0] });
      i += variable[0].length;
      continue;
    }
    const num = DURATION.exec(rest) ?? /^\d+(\.\d+)?/.exec(rest);
    if (num) {
      tokens.push({ kind: 'number', text: num[0] });
      i += num[0].length;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (word) {
      tokens.push({ kind: 'ident', text: word[0] });
      i += word[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => rest.startsWith(o));
    if (!op) throw new InfluxQLError(`unexpected character ${JSON.stringify(rest[0])} at ${i}`);
    tokens.push({ kind: 'op', text: op });
    i += op.length;
  }
  tokens.push({ kind: 'eof', text: '' });
  return tokens;
}

/** Parses one statement (a trailing `;` is allowed). */
export function parseInfluxQL(text: string): Query {
  const p = new Parser(tokenize(text));
  const query = p.isKeyword('show') ? p.showTagValues() : p.select();
  if (p.peek().text === ';') p.next();
  p.expectEnd();
  return query;
}

class Parser {
  private pos = 0;
  /** Where the select list being parsed records its function calls (undefined outside a select list). */
  private calls: SelectQuery['calls'] | undefined;
  constructor(private readonly tokens: Token[]) {}

  peek(offset = 0): Token {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)]!;
  }
  next(): Token {
    const t = this.peek();
    this.pos++;
    return t;
  }
  isKeyword(word: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === 'ident' && !t.quoted && t.text.toLowerCase() === word;
  }
  keyword(word: string): void {
    if (!this.isKeyword(word)) throw this.error(`expected ${word.toUpperCase()}`);
    this.next();
  }
  op(text: string): void {
    if (this.peek().text !== text || this.peek().kind !== 'op') throw this.error(`expected "${text}"`);
    this.next();
  }
  expectEnd(): void {
    if (this.peek().kind !== 'eof') throw this.error('unexpected trailing input');
  }
  error(message: string): InfluxQLError {
    const t = this.peek();
    return new InfluxQLError(`${message} at token ${this.pos} (${t.kind} ${JSON.stringify(t.text)})`);
  }

  /** A name: a quoted identifier or a bare word that is not a keyword. */
  name(): string {
    const t = this.peek();
    if (t.kind !== 'ident' || (!t.quoted && KEYWORDS.has(t.text.toLowerCase())))
      throw this.error('expected an identifier');
    this.next();
    return t.text;
  }

  select(): SelectQuery {
    this.keyword('select');
    const selected: string[] = [];
    const columns: string[] = [];
    const calls: SelectQuery['calls'] = [];
    this.calls = calls;
    do {
      const refs: string[] = [];
      const head = this.expression(refs);
      selected.push(...refs);
      if (this.isKeyword('as')) {
        this.next();
        columns.push(this.name());
      } else columns.push(head);
    } while (this.peek().text === ',' && this.next());
    this.calls = undefined;
    this.keyword('from');
    const source = this.source();
    const whereRefs: string[] = [];
    const equals: SelectQuery['equals'] = [];
    if (this.isKeyword('where')) {
      this.next();
      this.condition(whereRefs, equals);
    }
    const groupBy: string[] = [];
    if (this.isKeyword('group')) {
      this.next();
      this.keyword('by');
      do {
        if (this.isKeyword('time') && this.peek(1).text === '(') {
          this.next();
          this.skipParens();
        } else if (this.peek().text === '*') throw this.error('GROUP BY * names no tag; list the tags');
        else groupBy.push(this.name());
      } while (this.peek().text === ',' && this.next());
    }
    this.tail();
    return {
      kind: 'select',
      source,
      selected,
      columns,
      whereRefs: whereRefs.filter((r) => r !== 'time'),
      equals,
      groupBy,
      calls,
    };
  }

  /** fill(...), ORDER BY time [ASC|DESC], LIMIT/OFFSET/SLIMIT/SOFFSET n, tz('...'), in InfluxQL's order. */
  tail(): void {
    if (this.isKeyword('fill')) {
      this.next();
      this.skipParens();
    }
    if (this.isKeyword('order')) {
      this.next();
      this.keyword('by');
      if (this.name() !== 'time') throw this.error('only ORDER BY time is valid');
      if (this.isKeyword('asc') || this.isKeyword('desc')) this.next();
    }
    for (const word of ['limit', 'offset', 'slimit', 'soffset']) {
      if (!this.isKeyword(word)) continue;
      this.next();
      const n = this.next();
      if (n.kind !== 'number' && n.kind !== 'var') throw this.error(`${word.toUpperCase()} needs a number`);
    }
    if (this.isKeyword('tz')) {
      this.next();
      this.skipParens();
    }
  }

  source(): SelectQuery['source'] {
    if (this.peek().text === '(') {
      this.next();
      const subquery = this.select();
      this.op(')');
      return { subquery };
    }
    if (this.peek().kind === 'regex') throw this.error('a measurement regex names no measurement');
    // "db"."rp"."measurement": the last part is the measurement.
    let measurement = this.name();
    while (this.peek().text === '.') {
      this.next();
      measurement = this.name();
    }
    return { measurement };
  }

  /** Returns the expression's default column name (function name or identifier); collects identifiers in `refs`. */
  expression(refs: string[]): string {
    let head = this.operand(refs);
    while (['+', '-', '*', '/', '%'].includes(this.peek().text) && this.peek().kind === 'op') {
      this.next();
      this.operand(refs);
      head = head || 'expr';
    }
    return head;
  }

  operand(refs: string[]): string {
    const t = this.peek();
    if (t.text === '(' && t.kind === 'op') {
      this.next();
      const inner = this.expression(refs);
      this.op(')');
      return inner;
    }
    const boolean = t.kind === 'ident' && !t.quoted && ['true', 'false'].includes(t.text.toLowerCase());
    if (t.kind === 'number' || t.kind === 'string' || t.kind === 'var' || t.kind === 'regex' || boolean) {
      this.next();
      return '';
    }
    if (t.kind === 'op' && t.text === '*') throw this.error('SELECT * names no field; list the fields');
    if (t.kind === 'ident' && !t.quoted && this.peek(1).text === '(') {
      this.next();
      this.op('(');
      const arg = this.peek();
      if (
        arg.kind === 'ident' &&
        (arg.quoted || !KEYWORDS.has(arg.text.toLowerCase())) &&
        [',', ')'].includes(this.peek(1).text)
      ) {
        this.calls?.push({ fn: t.text.toLowerCase(), field: arg.text });
      }
      if (this.peek().text !== ')') {
        do this.expression(refs);
        while (this.peek().text === ',' && this.next());
      }
      this.op(')');
      return t.text.toLowerCase();
    }
    const name = this.name();
    refs.push(name);
    if (this.peek().text === '::') {
      this.next();
      this.next();
    }
    return name;
  }

  condition(refs: string[], equals: SelectQuery['equals']): void {
    this.conjunct(refs, equals);
    while (this.isKeyword('and') || this.isKeyword('or')) {
      this.next();
      this.conjunct(refs, equals);
    }
  }

  conjunct(refs: string[], equals: SelectQuery['equals']): void {
    if (this.peek().text === '(' && this.peek().kind === 'op') {
      this.next();
      this.condition(refs, equals);
      this.op(')');
      return;
    }
    // A Grafana macro standing for a whole condition, e.g. $timeFilter.
    if (this.peek().kind === 'var' && !COMPARISONS.includes(this.peek(1).text)) {
      this.next();
      return;
    }
    const left = this.peek();
    const leftRefs: string[] = [];
    this.expression(leftRefs);
    refs.push(...leftRefs);
    const op = this.next();
    if (op.kind !== 'op' || !COMPARISONS.includes(op.text)) throw this.error('expected a comparison');
    const right = this.peek();
    if (right.kind === 'regex') this.next();
    else this.expression(refs);
    if (op.text === '=' && left.kind === 'ident' && leftRefs.length === 1 && right.kind === 'string')
      equals.push({ key: left.text, value: right.text });
  }

  skipParens(): void {
    this.op('(');
    let depth = 1;
    while (depth > 0) {
      const t = this.next();
      if (t.kind === 'eof') throw this.error('unbalanced parentheses');
      if (t.kind === 'op' && t.text === '(') depth++;
      if (t.kind === 'op' && t.text === ')') depth--;
    }
  }

  showTagValues(): ShowTagValuesQuery {
    this.keyword('show');
    this.keyword('tag');
    this.keyword('values');
    let measurement: string | undefined;
    if (this.isKeyword('from')) {
      this.next();
      const source = this.source();
      if (!('measurement' in source)) throw this.error('SHOW TAG VALUES takes no subquery');
      measurement = source.measurement;
    }
    this.keyword('with');
    this.keyword('key');
    this.op('=');
    const key = this.name();
    const whereRefs: string[] = [];
    if (this.isKeyword('where')) {
      this.next();
      this.condition(whereRefs, []);
    }
    this.tail();
    return { kind: 'show-tag-values', ...(measurement !== undefined ? { measurement } : {}), key, whereRefs };
  }
}
