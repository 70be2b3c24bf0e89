import { errorCodeOf } from '../errors.js';
import type { Logger } from '../log.js';
import type { VerifyHost } from './run.js';
import {
  readVerifyRequests,
  readVerifyResult,
  removeVerifyRequest,
  verifyRequested,
  writeVerifyResult,
  type VerifyRequest,
  type VerifyResult,
} from './requests.js';

/** How often the daemon looks for verify requests (the command waits 15 s for the pick-up). */
const POLL_MS = 1_000;
/** How often a running verify looks whether its command is still there. */
const CANCEL_POLL_MS = 1_000;

/**
 * The daemon's side of verifies handed over by `cdn-collector verify` (verify/requests.ts): runs each request through
 * the daemon's runtime (limiter at backfill priority, its sink for a repair), one at a time, and writes the report.
 * Results whose request is gone (the command was stopped) are removed.
 */
export function serveVerifyRequests(rt: VerifyHost, log: Logger, pollMs = POLL_MS): { stop(): Promise<void> } {
  const dir = rt.config.state.dir;
  let stopping = false;
  let running: Promise<void> | undefined;
  const tick = async () => {
    if (running || stopping) return;
    running = (async () => {
      const { requests, orphans } = await readVerifyRequests(dir);
      for (const id of orphans) await removeVerifyRequest(dir, id);
      for (const request of requests) {
        if (stopping) break;
        if (await readVerifyResult(dir, request.id)) continue;
        await handle(rt, log, request);
      }
    })()
      .catch((err: unknown) => log.warn({ err: String(err) }, 'verify requests not read'))
      .finally(() => (running = undefined));
  };
  const timer = setInterval(() => void tick(), pollMs);
  timer.unref();
  void tick();
  return {
    // A verify under way is not waited for: the runtime's close ends its calls, and its command says it failed.
    async stop() {
      stopping = true;
      clearInterval(timer);
    },
  };
}

/**
 * Runs one request and writes its result. Its command removes the request when it ends: stopped (Ctrl-C), it leaves
 * no one to read the result, so the verify is ended within a second, its calls waiting for quota dropped.
 */
async function handle(rt: VerifyHost, log: Logger, request: VerifyRequest): Promise<void> {
  const dir = rt.config.state.dir;
  const base = { id: request.id, pid: process.pid };
  await writeVerifyResult(dir, { ...base, state: 'running', updatedAt: rt.clock.now() });
  log.info({ event: 'verify_handed_over', id: request.id, repair: request.repair }, 'verify handed over: running');
  const gone = new AbortController();
  const watch = setInterval(() => {
    void verifyRequested(dir, request.id).then((there) => there || gone.abort(new Error('its command stopped')));
  }, CANCEL_POLL_MS);
  let result: VerifyResult;
  try {
    const { verifyRange } = await import('./run.js'); // loaded when a request comes, not with the daemon
    const { checked: _checked, ...report } = await verifyRange(rt, log, request, request.repair, {
      signal: gone.signal,
    });
    result = { ...base, state: 'done', report, updatedAt: rt.clock.now() };
  } catch (err) {
    const error = { message: (err as Error).message, code: errorCodeOf(err) };
    result = { ...base, state: 'failed', error, updatedAt: rt.clock.now() };
  } finally {
    clearInterval(watch);
  }
  if (gone.signal.aborted) {
    log.info({ event: 'verify_cancelled', id: request.id }, 'handed-over verify ended: its command stopped');
    await removeVerifyRequest(dir, request.id);
    return;
  }
  await writeVerifyResult(dir, result);
}
