import { collectableEnd } from '../plan/windows.js';
import type { CollectJob, Span } from '../sources/common/types.js';
import { floorTo } from '../time.js';
import { formatDuration } from './eta.js';

/** `10-minute`, `1-hour`, `1-day` (else the duration as formatDuration writes it). */
function windowText(stepMs: number): string {
  for (const [unit, ms] of [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
  ] as const) {
    if (stepMs % ms === 0) return `${stepMs / ms}-${unit}`;
  }
  return formatDuration(stepMs);
}

const iso = (ms: number) => new Date(ms).toISOString().replace(':00.000Z', 'Z');

/**
 * Sentences saying where `--from`/`--to` do not fall on window bounds, or lie past the newest final window, and so
 * what is really collected: a window is read whole or not at all. One sentence per distinct window rule.
 */
export function describeCuts(jobs: readonly CollectJob[], range: Span, now: number): string[] {
  const out = new Set<string>();
  for (const job of jobs) {
    if (!job.checkpointed) continue;
    const { stepMs, delayMs } = job.rule;
    const step = windowText(stepMs);
    const fromStart = floorTo(range.from, stepMs);
    if (fromStart !== range.from) {
      out.add(
        `--from ${iso(range.from)} falls inside a ${step} window of ${job.api}: its whole window from ` +
          `${iso(fromStart)} is collected`,
      );
    }
    const newest = collectableEnd(job.rule, now);
    if (range.to > newest) {
      out.add(
        `--to ${iso(range.to)} is past the newest final ${step} window of ${job.api} (windows are read ` +
          `${formatDuration(delayMs)} after they end): collection ends at ${iso(newest)}`,
      );
    } else if (floorTo(range.to, stepMs) !== range.to) {
      const end = floorTo(range.to, stepMs);
      out.add(
        `--to ${iso(range.to)} cuts the ${step} window ${iso(end)}–${iso(end + stepMs)} of ${job.api}: it is not ` +
          `collected (windows are read whole); collection ends at ${iso(end)}`,
      );
    }
  }
  return [...out];
}
