/**
 * Which jobs `backfill --jobs` selects. The rule is the help's, taken literally: a job is selected when its key (or one
 * of its shared keys: `statistic/acme` selects the job reading every account's totals) starts with one of the given
 * texts. A plain text prefix, so `metrics` selects `metrics/…` and `metrics_resource/…`, `metrics/` only the former,
 * and `stat` every statistic job.
 */
import type { CollectJob } from '../contracts/job.js';

/** A prefix list (the `--jobs` texts; empty: every job) or a predicate of its own (a retry of exact keys). */
export type JobSelection = readonly string[] | ((job: CollectJob) => boolean);

/** The keys a job answers to: its own and its shared ones. */
export function keysOf(job: CollectJob): string[] {
  return [job.key, ...(job.sharedKeys?.() ?? [])];
}

/** Whether `selection` selects `job` (it must be checkpointed: the others have no past to backfill). */
export function selects(selection: JobSelection, job: CollectJob): boolean {
  if (!job.checkpointed) return false;
  if (typeof selection === 'function') return selection(job);
  return selection.length === 0 || keysOf(job).some((key) => selection.some((prefix) => key.startsWith(prefix)));
}

const LISTED_KEYS = 20;

/**
 * `--jobs X: no job key starts with X; the keys are: …` with the checkpointed jobs' keys (the first 20 and how many
 * more), so the next try can be right.
 */
export function noJobMatches(prefixes: readonly string[], jobs: readonly CollectJob[]): string {
  const keys = [...new Set(jobs.filter((j) => j.checkpointed).flatMap(keysOf))].sort();
  const listed = keys.slice(0, LISTED_KEYS).join(', ');
  const more = keys.length > LISTED_KEYS ? ` and ${keys.length - LISTED_KEYS} more` : '';
  const given = prefixes.join(', ');
  const what = prefixes.length === 1 ? 'it' : 'any of them';
  return (
    `--jobs ${given}: no job key starts with ${what}; ` +
    `${keys.length === 0 ? 'no job is configured' : `the keys are: ${listed}${more}`}`
  );
}
