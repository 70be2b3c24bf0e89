import type { LimiterEvent } from '../limit/types.js';
import type { Logger } from '../log.js';
import { ioProblem } from '../state/errors.js';
import type { JournalEvent } from '../state/quota-journal.js';
import type { Telemetry } from './telemetry.js';

/** The /healthz condition set while the quota journal cannot be written. */
export const JOURNAL_CONDITION = 'state:quota-journal';

/**
 * Limiter events to telemetry and the log (each attempt's outcome: ApiWatch). Lines carry the API, status, error code
 * and waits only — never an error's message or body, which may quote a URL or a server's text.
 */
export function reportLimiterEvent(telemetry: Telemetry, log: Logger, e: LimiterEvent): void {
  const fields = { api: e.api, attempt: e.attempt, status: e.status, code: e.code, waitMs: e.waitMs };
  switch (e.type) {
    case 'call':
      // Recorded in telemetry by the API watch (api-watch.ts), which tells the log's lines from that record.
      break;
    case 'retry':
      telemetry.apiRetry(e.api);
      log.debug({ event: 'api_call_retry', ...fields }, 'API call failed; retrying');
      break;
    case 'error':
      // A final error (404, bad parameters) is the caller's to report; giving up on a retryable one is ours.
      if (e.reason === 'deadline')
        log.warn({ event: 'api_call_gave_up', ...fields }, 'API call failed; giving up at its deadline');
      else log.debug({ event: 'api_call_final_error', ...fields }, 'API call failed with a final error');
      break;
    case 'retry-after-capped':
      log.warn({ ...fields, requestedMs: e.requestedMs }, 'Retry-After over api.maxRetryAfter; waiting the maximum');
      break;
    case 'throttled':
      break;
  }
}

/** Quota journal problems to the log, and write failures to /healthz until a write succeeds again. */
export function reportJournalEvent(telemetry: Telemetry, log: Logger, e: JournalEvent): void {
  switch (e.type) {
    case 'damaged':
      log.warn(
        { event: 'quota_journal_damaged', path: e.path, problem: e.problem, copy: e.copy ?? '(could not copy)' },
        'quota journal is damaged; counting every API quota window as full for one period',
      );
      break;
    case 'future':
      log.warn(
        { event: 'quota_journal_future', path: e.path, count: e.count, aheadMs: e.aheadMs },
        'quota journal has completion times in the future (wall clock set back?); counted as now',
      );
      break;
    case 'write-failed': {
      // The errno's own path is the one at fault (the temp file, a parent), when it names one.
      const failedPath = (e.error as NodeJS.ErrnoException | undefined)?.path ?? e.path;
      telemetry.condition(JOURNAL_CONDITION, `cannot write ${failedPath}: ${ioProblem(e.error)}`);
      log.warn(
        { event: 'quota_journal_unwritten', path: failedPath, problem: ioProblem(e.error) },
        'quota journal cannot be written; calls go on, but a restart may overspend the current window',
      );
      break;
    }
    case 'write-recovered':
      telemetry.condition(JOURNAL_CONDITION, undefined);
      log.info({ event: 'quota_journal_written_again', path: e.path }, 'quota journal written again');
      break;
  }
}
