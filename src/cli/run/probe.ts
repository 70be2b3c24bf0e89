import type { Gate } from '../../http/client.js';
import type { LimiterSet } from '../../limit/index.js';
import { collectableEnd } from '../../plan/windows.js';
import type { Point } from '../../points.js';
import { API_NAMES, type ApiName } from '../../spec/apis.js';
import type { CollectJob, Span } from '../../sources/common/types.js';
import { describeError } from '../../collector/errors.js';
import type { Runtime } from '../../app/runtime.js';
import type { Verdict } from '../common/sink-probe.js';
import { counted } from '../../words.js';

/**
 * How long a check's call may wait for its quota slot and answer: the limiter and the quota journal still decide
 * when it is sent (a quota spent by the daemon a moment ago delays it), but a check never waits minutes.
 */
export const CHECK_DEADLINE_MS = 65_000;

/** The newest window a job can read now: one step (one call, unless the server pages it). */
export function newestWindow(job: CollectJob, now: number): Span {
  if (!job.checkpointed) {
    const current = job.currentSpans?.(now)[0];
    if (current) return current;
  }
  const to = job.checkpointed
    ? collectableEnd(job.rule, now)
    : Math.floor(now / job.rule.stepMs) * job.rule.stepMs + job.rule.stepMs;
  return { from: to - job.rule.stepMs, to };
}

/**
 * A gate through the limiter (quota, journal) that makes ONE attempt per call: the first failure aborts the
 * limiter's backoff and is thrown as it came, so a check answers in seconds instead of retrying for minutes.
 */
export function oneAttemptGate(limiters: LimiterSet, deadlineMs = CHECK_DEADLINE_MS): Gate {
  const stop = new AbortController();
  const gate = limiters.gate('live', { deadlineMs, signal: stop.signal });
  return (api, send) =>
    gate(api, () =>
      send().catch((err: unknown) => {
        stop.abort(err);
        throw err;
      }),
    );
}

/**
 * Reads the newest window of `job` with one attempt per call; writes nothing, confirms nothing. `deadlineMs` bounds
 * the wait for a quota slot (many jobs on a small quota wait their turn).
 */
export function sampleJob(rt: Runtime, job: CollectJob, deadlineMs = CHECK_DEADLINE_MS): Promise<Point[]> {
  return job.collect(newestWindow(job, rt.clock.now()), rt.http.withGate(oneAttemptGate(rt.limiters, deadlineMs)));
}

/**
 * `accounts: auto` finds the accounts first (one statistics call): the jobs of every API depend on them. Undefined
 * when there is nothing to discover or it worked; otherwise why it failed.
 */
export async function discoverForCheck(rt: Runtime): Promise<string | undefined> {
  if (!rt.discovery) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_DEADLINE_MS / 1000} s`)), CHECK_DEADLINE_MS);
  });
  try {
    await Promise.race([rt.discovery.refresh(), late]);
    return rt.discovery.accounts.length === 0
      ? 'accounts: auto found no account with traffic in the last day'
      : undefined;
  } catch (err) {
    return `accounts: auto: reading the accounts failed: ${describeError(err)}`;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One call to each enabled API: the newest window of its first job (the cheapest read it makes), through the limiter
 * and the quota journal. APIs are checked side by side, so the whole check takes about one round trip.
 */
export async function checkApis(rt: Runtime): Promise<Map<ApiName, Verdict>> {
  const enabled = API_NAMES.filter((api) => rt.config.jobs[api].enabled);
  const discoveryProblem = await discoverForCheck(rt);
  const verdicts = await Promise.all(
    enabled.map(async (api): Promise<[ApiName, Verdict]> => {
      const job = rt.collector.jobs.find((j) => j.api === api);
      if (!job)
        return [api, { ok: !discoveryProblem, detail: discoveryProblem ?? 'no job configured (nothing to check)' }];
      try {
        const points = await sampleJob(rt, job);
        return [
          api,
          { ok: true, detail: `${job.key}: answered, ${counted(points.length, 'point')} in the newest window` },
        ];
      } catch (err) {
        return [api, { ok: false, detail: `${job.key}: ${describeError(err)}` }];
      }
    }),
  );
  return new Map(verdicts);
}
