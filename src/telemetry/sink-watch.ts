import type { CollectorConfig } from '../config/schema.js';
import { withoutUserinfo } from '../secrets.js';
import { causeCode, SinkError } from '../sink/errors.js';
import type { Sink, WriteResult } from '../sink/types.js';
import { classify, TRANSIENT_NETWORK_CODES } from '../failure.js';
import type { Failing, FailureLines } from './failure-lines.js';
import type { Telemetry } from './telemetry.js';

/** Where the sink's run of failed writes is kept: the one record /healthz and /metrics read too. */
export type SinkFailureRecord = Pick<Telemetry, 'sinkWriteFailed' | 'sinkWriteAnswered'>;

/**
 * `sink` with every write's outcome recorded in `record` and told by `lines` from that record, as the APIs' calls are
 * (ApiWatch): the first failed write of a run logged at once with its fix — at error level when it needs an operator
 * (nothing listens, no such database, credentials refused) —, a summary a minute while writes fail, one line at the
 * write that ends the run. So the log names the start and count /healthz names, and both end at the same write. The
 * callers' retries (retryingSink, the next pass) add no lines of their own.
 */
export function watchedSink(
  sink: Sink,
  config: CollectorConfig['sink'],
  record: SinkFailureRecord,
  lines: FailureLines,
): Sink {
  const who: Failing = { label: `sink ${sink.name}`, fields: { sink: sink.name } };
  return {
    name: sink.name,
    async write(points) {
      try {
        const result = await sink.write(points);
        if (answered(result)) lines.succeeded(who, record.sinkWriteAnswered());
        return result;
      } catch (err) {
        if (err instanceof SinkError) {
          const reason = sinkFailureReason(err);
          lines.failed(who, record.sinkWriteFailed(reason), { reason }, () => ({
            level: classify(err).operator ? 'error' : 'warn',
            msg: `${who.label} write failed: ${reason}${sinkFix(err, config)}; retried, a summary a minute meanwhile`,
          }));
        }
        throw err;
      }
    },
    flush: () => sink.flush(),
    close: () => sink.close(),
  };
}

/**
 * The database answered the write: it confirmed lines or refused them (as an API's answered 4xx, not a failure). A
 * write that sent nothing (no points, or none the encoder could write) tells nothing of the database.
 */
function answered(result: WriteResult): boolean {
  return result.written > 0 || result.refusals !== undefined;
}

/** HTTP status, system code (ECONNREFUSED) or the error's own text: what the lines call the reason. */
export function sinkFailureReason(err: SinkError): string {
  if (err.status !== undefined) return `HTTP ${err.status}`;
  return causeCode(err) ?? err.message;
}

/** What fixes a failed write, naming the setting and its variable: ` (…)`, or '' when a retry is all it takes. */
export function sinkFix(err: SinkError, sink: CollectorConfig['sink']): string {
  if (sink.type === 'file') return err.retryable ? ` (check that ${sink.path} can be written: sink.path)` : '';
  const code = causeCode(err);
  if (code !== undefined && !TRANSIENT_NETWORK_CODES.has(code)) {
    return ` (nothing answers at ${withoutUserinfo(sink.url)}: start the database, or check sink.url / INFLUX_URL)`;
  }
  if (err.status === 404) {
    if (sink.type === 'victoriametrics')
      return ` (no /api/v2/write at ${withoutUserinfo(sink.url)}: check sink.url / INFLUX_URL, e.g. http://host:8428)`;
    return sink.type === 'influx-v1'
      ? ` (no database ${sink.database}: create it, influx -execute 'CREATE DATABASE "${sink.database}"', or check ` +
          'sink.database / INFLUX_DATABASE)'
      : ` (no bucket ${sink.bucket} in org ${sink.org}: create it, influx bucket create --name ${sink.bucket} --org ` +
          `${sink.org}, or check sink.bucket / INFLUX_BUCKET)`;
  }
  if (err.status === 401 || err.status === 403) {
    return sink.type === 'influx-v1'
      ? ' (credentials refused: check sink.username / INFLUX_USERNAME and sink.password / INFLUX_PASSWORD)'
      : ' (token refused: check sink.token / INFLUX_TOKEN)';
  }
  return '';
}
