import type { Logger } from '../log.js';
import type { BackfillHost } from './handed-over.js';
import { readRequests, readStatus, removeRequest } from './requests.js';

/** How often the daemon looks for requests. */
const POLL_MS = 1_000;
/** A finished request nobody collected (the command was killed) is removed after this. */
const KEEP_FINISHED_MS = 24 * 3_600_000;

/**
 * The daemon's side of backfills handed over by `cdn-collector backfill` (see backfill/requests.ts): runs each
 * request through the daemon's own collector at backfill priority, one at a time, and reports progress in its status
 * file. A request found running at start-up (the daemon was restarted) is resumed: its confirmed spans are skipped.
 * What runs a request (the planner, the backfill, its owned range) is loaded when the first one arrives.
 */
export function serveBackfillRequests(rt: BackfillHost, log: Logger, pollMs = POLL_MS): { stop(): Promise<void> } {
  const dir = rt.config.state.dir;
  let stopping = false;
  let busy = false;
  const handled = new Set<string>();

  const tick = async () => {
    if (busy || stopping) return;
    busy = true;
    try {
      for (const request of await readRequests(dir)) {
        if (stopping) break;
        if (handled.has(request.id)) continue;
        const previous = await readStatus(dir, request.id);
        if (previous && previous.state !== 'running') {
          if (rt.clock.now() - previous.updatedAt > KEEP_FINISHED_MS) await removeRequest(dir, request.id);
          else handled.add(request.id);
          continue;
        }
        handled.add(request.id);
        const { runHandedOver } = await import('./handed-over.js');
        await runHandedOver(rt, log, request, () => stopping).catch((err: unknown) =>
          log.warn({ id: request.id, err: String(err) }, 'backfill request failed'),
        );
      }
    } catch (err) {
      log.warn({ err: String(err) }, 'backfill requests not read');
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), pollMs);
  timer.unref();
  void tick();
  return {
    async stop() {
      stopping = true;
      clearInterval(timer);
    },
  };
}
