/**
 * A small PromQL reader for the alert rules' expressions: not a full parser (no npm dependency for one), but enough to
 * refuse unbalanced brackets, unknown functions, misplaced operators, and to list which metrics, matcher labels and
 * grouping labels an expression names, so the test can hold them against what the collector's /metrics exports.
 * VictoriaMetrics (MetricsQL, a superset of PromQL) then parses and evaluates each expression for real.
 */
type Kind = 'ident' | 'number' | 'duration' | 'string' | 'op' | 'open' | 'close';
interface Token {
  kind: Kind;
  text: string;
}

export interface PromRefs {
  /** Metric selectors: name and the label names of its matchers. */
  selectors: Array<{ metric: string; labels: string[] }>;
  /** Labels of by (…) / without (…) / on (…) / ignoring (…). */
  grouping: string[];
  functions: string[];
}

const FUNCTIONS = new Set([
  'abs',
  'absent',
  'ceil',
  'changes',
  'clamp_max',
  'clamp_min',
  'delta',
  'deriv',
  'floor',
  'histogram_quantile',
  'idelta',
  'increase',
  'irate',
  'label_replace',
  'max_over_time',
  'min_over_time',
  'avg_over_time',
  'last_over_time',
  'rate',
  'resets',
  'round',
  'time',
  'timestamp',
  'vector',
]);
const AGGREGATIONS = new Set(['sum', 'min', 'max', 'avg', 'count', 'stddev', 'topk', 'bottomk', 'quantile', 'group']);
const GROUPERS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
const BINARY = new Set(['==', '!=', '>', '<', '>=', '<=', '+', '-', '*', '/', '%', '^', 'and', 'or', 'unless']);
const MATCH_OPS = new Set(['=', '!=', '=~', '!~']);

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const rules: Array<[Kind, RegExp]> = [
    ['duration', /^\[\d+[smhdwy]\]/],
    ['string', /^"(?:\\.|[^"\\])*"/],
    ['number', /^\d+(\.\d+)?/],
    ['ident', /^[A-Za-z_:][A-Za-z0-9_:]*/],
    ['op', /^(==|!=|>=|<=|=~|!~|[=><+\-*/%^,])/],
    ['open', /^[({]/],
    ['close', /^[)}]/],
  ];
  let rest = text.trim();
  while (rest !== '') {
    const rule = rules.find(([, re]) => re.test(rest));
    if (!rule) throw new Error(`unexpected ${JSON.stringify(rest.slice(0, 20))}`);
    const match = rule[1].exec(rest)![0];
    tokens.push({ kind: rule[0], text: match });
    rest = rest.slice(match.length).trimStart();
  }
  return tokens;
}

/** Reads `expr`; throws with the reason when it is not a PromQL expression this reader understands. */
export function readPromQL(expr: string): PromRefs {
  const tokens = tokenize(expr);
  const refs: PromRefs = { selectors: [], grouping: [], functions: [] };
  const stack: string[] = [];
  let expectOperand = true;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const next = tokens[i + 1];
    if (t.kind === 'ident' && GROUPERS.has(t.text)) {
      if (next?.text !== '(') continue; // group_left without labels
      const close = tokens.findIndex((x, j) => j > i && x.text === ')');
      if (close < 0) throw new Error(`${t.text} ( is not closed`);
      const labels = tokens.slice(i + 2, close).filter((x) => x.text !== ',');
      if (labels.some((x) => x.kind !== 'ident')) throw new Error(`${t.text} (…) lists labels only`);
      refs.grouping.push(...labels.map((x) => x.text));
      i = close;
      continue;
    }
    if (t.kind === 'ident' && BINARY.has(t.text)) {
      if (expectOperand) throw new Error(`"${t.text}" without a left operand`);
      expectOperand = true;
      continue;
    }
    const aggregation = AGGREGATIONS.has(t.text) && (next?.text === 'by' || next?.text === 'without');
    if (t.kind === 'ident' && (next?.text === '(' || aggregation)) {
      if (!FUNCTIONS.has(t.text) && !AGGREGATIONS.has(t.text)) throw new Error(`unknown function ${t.text}`);
      refs.functions.push(t.text);
      continue;
    }
    if (t.kind === 'ident' && t.text === 'bool') continue;
    if (t.kind === 'ident') {
      if (!expectOperand) throw new Error(`"${t.text}" follows an operand`);
      const labels: string[] = [];
      if (next?.text === '{') {
        const close = tokens.findIndex((x, j) => j > i && x.text === '}');
        if (close < 0) throw new Error('{ is not closed');
        const inner = tokens.slice(i + 2, close);
        for (let j = 0; j < inner.length; j += 4) {
          const [name, op, value, comma] = inner.slice(j, j + 4);
          if (
            name?.kind !== 'ident' ||
            !MATCH_OPS.has(op?.text ?? '') ||
            value?.kind !== 'string' ||
            (comma && comma.text !== ',')
          ) {
            throw new Error(`bad matcher in ${t.text}{…}`);
          }
          labels.push(name.text);
        }
        i = close;
      }
      if (tokens[i + 1]?.kind === 'duration') i++;
      refs.selectors.push({ metric: t.text, labels });
      expectOperand = false;
      continue;
    }
    if (t.kind === 'number' || t.kind === 'string') {
      expectOperand = false;
      continue;
    }
    if (t.kind === 'duration') throw new Error(`range ${t.text} must follow a selector`);
    if (t.kind === 'open') {
      stack.push(t.text === '(' ? ')' : '}');
      expectOperand = true;
      continue;
    }
    if (t.kind === 'close') {
      if (stack.pop() !== t.text) throw new Error(`unbalanced ${t.text}`);
      if (tokens[i + 1]?.kind === 'duration') i++; // subquery-free range on a parenthesised selector
      expectOperand = false;
      continue;
    }
    if (t.text === ',') {
      expectOperand = true;
      continue;
    }
    if (BINARY.has(t.text)) {
      if (expectOperand && t.text !== '-') throw new Error(`"${t.text}" without a left operand`);
      expectOperand = true;
      continue;
    }
    throw new Error(`unexpected ${t.text}`);
  }
  if (stack.length > 0) throw new Error(`unclosed ${stack.join('')}`);
  if (expectOperand) throw new Error('ends with an operator');
  return refs;
}
