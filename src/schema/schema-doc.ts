import { EMPTY_TAG, type Aggregate, type MeasurementSchema } from '../points.js';

/** How docs/schema.md is regenerated; printed in its header and in the test that compares it. */
export const REGENERATE_COMMAND = 'npm run build && node bin/cdn-collector.js schema --write docs/schema.md';

type SchemaInput = Iterable<MeasurementSchema> | ReadonlyMap<string, MeasurementSchema>;

function measurementsOf(schema: SchemaInput): MeasurementSchema[] {
  return schema instanceof Map ? [...schema.values()] : [...(schema as Iterable<MeasurementSchema>)];
}

/** Table cells must not break the row: pipes are escaped, line breaks folded. */
function cell(text: string): string {
  return text
    .replace(/\|/g, '\\|')
    .replace(/</g, '&lt;')
    .replace(/\s*\n\s*/g, ' ');
}

/** The Aggregate column: how a field combines over buckets and series. */
function aggregateText(a: Aggregate | undefined): string {
  if (a === undefined) return '—';
  if (typeof a === 'object') return `sum(\`${a.ratio[0]}\`) / sum(\`${a.ratio[1]}\`)`;
  return a === 'last' ? 'last (never sum)' : a;
}

function renderMeasurement(m: MeasurementSchema): string {
  const rows = [
    ...Object.entries(m.tags).map(([name, meaning]) => `| tag | \`${name}\` | string | — | — | ${cell(meaning)} |`),
    ...Object.entries(m.fields).map(
      ([name, f]) =>
        `| field | \`${name}\` | ${f.type}${f.nonNegative ? ' ≥ 0' : ''} | ${cell(f.unit ?? '—')} | ` +
        `${cell(aggregateText(f.aggregate))} | ${cell(f.description)} |`,
    ),
  ];
  const query = m.query === undefined ? [] : ['', 'Query it so:', '', '```sql', m.query, '```'];
  return [
    `## \`${m.name}\``,
    '',
    cell(m.description),
    '',
    `Source API: ${cell(m.source)}`,
    '',
    '| | Name | Type | Unit | Aggregate | Description |',
    '|---|---|---|---|---|---|',
    ...rows,
    ...query,
  ].join('\n');
}

/** One section with one table per measurement, in schema order. */
export function renderSchemaMarkdown(schema: SchemaInput): string {
  return `${measurementsOf(schema).map(renderMeasurement).join('\n\n')}\n`;
}

/** docs/schema.md: a short header followed by renderSchemaMarkdown. */
export function renderSchemaDocument(schema: SchemaInput): string {
  const names = measurementsOf(schema).map((m) => `\`${m.name}\``);
  return [
    '# InfluxDB schema of cdn-collector',
    '',
    `<!-- Generated from src/schema/schema.ts; do not edit. Regenerate: ${REGENERATE_COMMAND} -->`,
    '',
    `Measurements: ${names.join(', ')}.`,
    '',
    '- **Tags** are strings. ' +
      `An empty tag value (e.g. an empty region name) is written as \`${EMPTY_TAG}\`: InfluxDB drops`,
    '  empty tags, which would silently merge that series into another one. A value that itself reads like the',
    '  placeholder gets one more pair of parentheses, so it never merges with an empty one: ' +
      `\`${EMPTY_TAG}\` is written as`,
    `  \`(${EMPTY_TAG})\`, \`(${EMPTY_TAG})\` as \`((${EMPTY_TAG}))\`. ` +
      `Reading back: \`${EMPTY_TAG}\` alone means empty; otherwise strip one`,
    '  pair of parentheses from a value of the form `(…(empty)…)`.',
    '- **Timestamps** are the start of the window or bucket the values describe (UTC), never',
    '  the time the collector ran; re-collecting a window overwrites the same points instead of duplicating them.',
    '  Exception: `cdn_collector` (self-monitoring) is stamped with the moment of the snapshot.',
    '  Precision on the wire: the InfluxDB sinks send seconds (`precision=s`); the file sink (`data/points.lp`) writes',
    "  **nanoseconds**, InfluxDB's default when a write names no precision, so the file loads as is (see README).",
    '- **Field types are fixed** per measurement and field as listed here (integer fields are written with the `i`',
    '  suffix), whatever a value looks like, so InfluxDB never rejects a write for a field type conflict.',
    '- A point may carry a subset of the listed tags and fields, never one outside them.',
    '- **Values that are no measurement are not written**: a negative value in a field marked `≥ 0` (counts, sizes,',
    '  ratios, durations) or an integer outside int64 (±2^63). That point goes to the dead-letter file',
    '  (`output.deadLetterPath`) with the reason, naming the field; the rest of the span is written.',
    '- **Job state** is one record (`collector/job-state.ts`): `status`, `/healthz`, `/metrics` and the',
    "  `cdn_collector` points read it when asked. A job's *watermark* is the end of its contiguous confirmed",
    '  history; its *lag* is now minus the end of that history extended by the spans set aside, and a job that has',
    '  confirmed nothing lags from the start of the first window due after it joined (daemon start or discovery), so',
    '  `status` shows its watermark as `—`, never a lag of 0. Its *backlog* is the windows a checkpointed job still',
    '  lacks between its origin and the newest collectable window (0 for jobs that read only the newest window),',
    '  counted when read, at most once a minute.',
    '  An API is *failing since* its first failed call with no call served after it (`telemetry/failing.ts`). A 429',
    '  is a wait the server asked for: neither a failure nor served, so a run of 429s alone is not failing and the',
    '  failed calls counted leave 429s out. An answered 4xx (404, 400: the span is set aside) is a call served: it',
    "  ends a run and starts none. It is one record that the API's log lines (the first failure, a summary a minute,",
    '  `answers again`, each naming `failedCalls` and `since`), `/healthz` (after `http.apiFailingAfter`; refusals of',
    '  the token at once, after one renewal where the token can be renewed), `status` (what `/healthz` names),',
    "  `/metrics` and `verify`'s give-up all read. A refusal a renewal is about to cure counts in the run but is",
    '  logged as an info line only; a run it alone made ends without a line. The sink is *failing since* its first',
    '  failed write with no write answered after it (lines confirmed or refused; a write that sends nothing tells',
    '  nothing), one record that its log lines, `/healthz` (after `http.sinkFailingAfter`), `status` (what',
    '  `/healthz` names) and `/metrics` all read.',
    '',
    renderSchemaMarkdown(schema),
  ].join('\n');
}

/** The schema as JSON (for tools): an array of measurements. */
export function renderSchemaJson(schema: SchemaInput): string {
  return `${JSON.stringify(measurementsOf(schema), null, 2)}\n`;
}
