/**
 * Why the collector does not use bottleneck's reservoir as its quota gate: the reservoir refills on its own clock
 * (every `reservoirRefreshInterval` from when the limiter was made), not on the server's sliding window. Calls spent
 * late in one interval and again right after the refill all fall inside one sliding window: up to 2× the quota.
 *
 * A quota of 5 calls per minute, scaled to 5 per PERIOD (default 3 s; BENCH_PERIOD_MS): 10 callers ask at once, 90 %
 * into the reservoir's interval. Prints when each call was let through (ms since the limiter was made, and its place
 * in the refresh interval), then the most calls in any sliding window of one period, for bottleneck and for our
 * exact Limiter with the same quota.
 *
 * Run: node bench/run.js bottleneck-window
 */
import { setTimeout as delay } from 'node:timers/promises';
import Bottleneck from 'bottleneck';
import { Limiter } from '../src/limit/limiter.js';
import { maxInSlidingWindow } from '../src/sim/stats.js';
import { report, target } from './lib/results.js';

const N = 5;
const PERIOD = Number(process.env.BENCH_PERIOD_MS ?? 3000);
const CALLERS = 10;

/** Lets CALLERS calls through `gate`, all asked for at 0.9 period, and returns when each one ran (ms since `t0`). */
async function burst(name: string, gate: (call: () => Promise<void>) => Promise<void>, t0: number): Promise<number[]> {
  await delay(PERIOD * 0.9 - (Date.now() - t0));
  const ran: number[] = [];
  await Promise.all(Array.from({ length: CALLERS }, () => gate(async () => void ran.push(Date.now() - t0))));
  const worst = maxInSlidingWindow(ran, PERIOD);
  const phases = ran.map((t) => `${t}(${Math.round(((t % PERIOD) / PERIOD) * 100)}%)`).join(' ');
  console.log(`${name.padEnd(21)} calls at ms since start (place in its period): ${phases}`);
  console.log(
    `${''.padEnd(21)} most calls in any ${PERIOD} ms window: ${worst} (quota ${N})${worst > N ? ' OVER QUOTA' : ''}`,
  );
  return ran;
}

const reservoir = new Bottleneck({ reservoir: N, reservoirRefreshAmount: N, reservoirRefreshInterval: PERIOD });
const theirs = await burst('bottleneck reservoir', (call) => reservoir.schedule(call), Date.now());
await reservoir.stop({ dropWaitingJobs: true });
const exact = new Limiter('statistic', { calls: N, periodMs: PERIOD });
const ours = await burst('exact sliding window', (call) => exact.run(call), Date.now());

const worstTheirs = maxInSlidingWindow(theirs, PERIOD);
const worstOurs = maxInSlidingWindow(ours, PERIOD);
report(
  'bottleneck-window',
  {
    quota: `${N}/${PERIOD}ms`,
    callers: CALLERS,
    bottleneck: { worst: worstTheirs, ranAtMs: theirs },
    exact: { worst: worstOurs, ranAtMs: ours },
  },
  [target('exact limiter: most calls in one window', worstOurs, 'max', N)],
);
