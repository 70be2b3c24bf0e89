import { createRequire } from 'node:module';
import type * as CliProgress from 'cli-progress';
import { formatDuration } from '../../backfill/eta.js';
import {
  reportQuotaWaits,
  watchQuotaWaits,
  type QuotaWaitReport,
  type QuotaWaits,
  type QuotaWatched,
} from '../../app/quota-waits.js';
import type { ApiName } from '../../spec/apis.js';

/**
 * Progress of `rt`'s calls until `stop()`: a bar on a terminal, else a line every `log.progressEvery` to stderr (or to
 * `report`) while calls wait for quota (app/quota-waits.ts).
 */
export function showQuotaProgress(
  rt: QuotaWatched,
  planned: Partial<Record<ApiName, number>>,
  report: QuotaWaitReport = (line) => process.stderr.write(`${line}\n`),
  tty = process.stderr.isTTY === true,
): { stop(): void } {
  if (!tty) return reportQuotaWaits(rt, planned, report);
  const watched = watchQuotaWaits(rt, planned);
  const bar = new QuotaBar(watched.waits);
  const timer = setInterval(() => bar.render(), 1_000);
  timer.unref();
  return {
    stop() {
      watched.stop();
      clearInterval(timer);
      bar.stop();
    },
  };
}

/** The bar on stderr: calls done of those planned, and what waits for quota and how long. */
class QuotaBar {
  private bar: CliProgress.SingleBar | undefined;

  constructor(private readonly waits: QuotaWaits) {}

  render(): void {
    const waiting = this.waits.waiting();
    if (!this.bar && waiting.length === 0) return;
    const total = this.waits.plannedTotal();
    const done = this.waits.doneTotal();
    const text =
      waiting.length === 0
        ? 'calling'
        : `waiting for quota: ${waiting.map((w) => `${w.api} ~${formatDuration(w.leftMs)}`).join(', ')}`;
    if (!this.bar) {
      // Loaded for a terminal only: a daemon or a piped run never draws a bar.
      const { Presets, SingleBar } = createRequire(import.meta.url)('cli-progress') as typeof CliProgress;
      this.bar = new SingleBar(
        { format: 'calls [{bar}] {value}/{total} | {text}', hideCursor: true },
        Presets.shades_classic,
      );
      this.bar.start(total, done, { text });
    } else this.bar.update(done, { text });
    this.bar.setTotal(Math.max(total, done));
  }

  stop(): void {
    this.bar?.stop();
  }
}
