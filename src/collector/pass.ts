import { LoginError, LoginStoppedError, TokenFileError } from '../auth/errors.js';
import type { HttpClient } from '../http/client.js';
import { ApiError } from '../http/errors.js';
import { LimiterClosedError } from '../limit/errors.js';
import { errorCodeOf, type ErrorCode } from '../errors.js';
import { isSpanFault } from '../failure.js';
import { HAND_OFF_POINTS } from '../paging/walk.js';
import type { Point } from '../points.js';
import { SinkError } from '../sink/errors.js';
import type { CollectJob, Span } from '../sources/common/types.js';
import { type AccountStanding, isAccountRefusal, refusalReason } from '../sources/common/account-standing.js';
import { describeError } from './errors.js';
import { spanText } from './job-state.js';
import { noCounts, type OutputDeps, type PassCounts, SpanOutput } from './span-output.js';

export interface PassResult {
  key: string;
  spans: number;
  points: number;
  /** Spans that failed for a permanent reason in this pass and were set aside (the pass went on after them). */
  setAside: number;
  /** Points the database refused for good in the job's writes (dead-lettered). */
  refused?: number;
  /** The error that ended the pass early; the remaining spans stay missing and are retried on the next pass. */
  error?: string;
  /** Its stable code (`CDN_ERR_…`). */
  errorCode?: ErrorCode;
}

/** One pass of one job: its spans, the client its calls go through, and what stops it early. */
export interface PassInput {
  spans: readonly Span[];
  /** The quota-gated client (the pass's priority, and its abort signal, which drops its queued calls). */
  http: HttpClient;
  /** Asked before each span: a backfill's Ctrl-C, the collector's graceful stop. */
  stopped: () => boolean;
  signal?: AbortSignal | undefined;
  onSpan?: ((span: Span) => void) | undefined;
  /** Where the pass counts what it did as it goes (default: its own), for a caller answered before it ends. */
  counts?: PassCounts | undefined;
}

/**
 * One pass of one job, as Telegraf's gather → accumulator → output: the job gathers each span's points through the
 * quota-gated client (`job.collect`), and the SpanOutput writes them in span order and confirms each span once its
 * points are written. Span n+1 is gathered while span n is written (unless span n is large), so API and database
 * latencies overlap. A span that fails for a permanent reason (isSpanFault) is set aside and the pass goes on; any
 * other failure ends the pass, and its span and all later ones stay missing, collected again by the next pass.
 */
export async function runPass(job: CollectJob, input: PassInput, deps: OutputDeps): Promise<PassResult> {
  const { spans, http, stopped, signal, onSpan } = input;
  const output = new SpanOutput(job, deps, onSpan, input.counts);
  let failure: { span: Span; err: unknown } | undefined;
  for (const span of spans) {
    if (stopped()) break;
    // A large span is written before the next is read, so that two such spans' points are never held at once (a
    // catch-up of thousands of resources: thousands of points of dozens of fields each).
    if (output.writingPoints >= HAND_OFF_POINTS) {
      await output.settle();
      if (output.failure) break;
    }
    const gathered = await job.collect(span, http, output.handOff(span)).then(
      (points): Gathered => ({ failed: false, points }),
      (err: unknown): Gathered => ({ failed: true, err }),
    );
    await output.settle();
    if (output.failure || (gathered.failed && signal?.aborted)) break;
    if (!gathered.failed) {
      output.add(span, gathered.points);
      continue;
    }
    if (job.checkpointed && isSpanFault(gathered.err) && (await deps.state.setAside(job, span, gathered.err))) {
      output.counts.setAside++;
      continue;
    }
    failure = { span, err: gathered.err };
    break;
  }
  await output.settle();
  failure = output.failure ?? failure;
  // A read that failed after the abort had its calls dropped by it: stopped, not failed. A failed write is not the
  // abort's doing: the pass still reports it (the job is not recovered).
  if (failure && failure !== output.failure && signal?.aborted) failure = undefined;
  const result = passResult(job.key, output.counts);
  if (failure) {
    result.error = describeError(failure.err);
    result.errorCode = errorCodeOf(failure.err);
    // A graceful stop closes the limiter under the calls still waiting for quota: that is the stop, not a failure.
    // A failed write is the sink's, reported once per run of failures by the runtime's sink, not per job and pass;
    // an account the token may not read, by the API watch's one line per account; a job waiting for a token, by the
    // runtime's auth lines (once per run of failed logins).
    const quiet =
      (deps.stop.aborted && (failure.err instanceof LimiterClosedError || failure.err instanceof LoginStoppedError)) ||
      (failure === output.failure && failure.err instanceof SinkError) ||
      (failure.err instanceof ApiError && failure.err.noAccess) ||
      failure.err instanceof LoginError ||
      failure.err instanceof TokenFileError;
    const fields = { event: 'span_failed', job: job.key, span: spanText(failure.span), err: result.error };
    deps.log[quiet ? 'debug' : 'warn'](fields, 'span failed; it stays missing and is retried');
  }
  noteAccount(job, failure?.err, output.counts.spans, deps.accounts);
  deps.state.passEnded(job, result.error);
  return result;
}

/** What the pass proved of the job's account: an API refused it (no new token cures that), or answered for it. */
function noteAccount(job: CollectJob, err: unknown, spans: number, standing: AccountStanding | undefined): void {
  if (!standing || job.account === undefined) return;
  if (isAccountRefusal(err)) standing.refused(job.account, job.api, refusalReason(err));
  else if (spans > 0) standing.answered(job.account, job.api);
}

/** A span's points as the job gathered them, or why it could not. */
type Gathered = { failed: false; points: Point[] } | { failed: true; err: unknown };

/** A pass's result from its counts (so far, for a caller answered before the pass ends). */
export function passResult(key: string, counts: PassCounts = noCounts()): PassResult {
  const { spans, points, setAside, refused } = counts;
  return { key, spans, points, setAside, ...(refused > 0 ? { refused } : {}) };
}
