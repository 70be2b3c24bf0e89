/**
 * Limiter benchmark: 20 concurrent callers push calls with random latency (the server counts a call somewhere
 * between send and answer) through (a) our exact sliding-window Limiter and (b) bottleneck's reservoir with the same
 * quota. Each gate idles 0.9 period first, so the burst starts late in bottleneck's refresh interval: its refresh is
 * not aligned to the server's window, and about 2N calls pass in well under one period. Reports the most arrivals
 * the "server" saw in any sliding window (must be ≤ N) and the calls per second, then the limiter's own overhead
 * per call without a quota.
 *
 * Run: node bench/run.js limiter (or npx vite-node bench/limiter.ts [calls] [quotaCalls] [periodMs] [latencyShare])
 */
import { setTimeout as delay } from 'node:timers/promises';
import Bottleneck from 'bottleneck';
import { Limiter } from '../src/limit/limiter.js';
import { sequence } from '../src/sim/model/rng.js';
import { maxInSlidingWindow } from '../src/sim/stats.js';
import { report, target, type Target } from './lib/results.js';

const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const CALLS = Number(positional[0] ?? 30);
const N = Number(positional[1] ?? 5);
const PERIOD = Number(positional[2] ?? 1000);
const CALLERS = 20;
/** Largest one-way latency as a share of the period. */
const LATENCY = Number(positional[3] ?? 0.1);

type Gate = (send: () => Promise<void>) => Promise<void>;

async function trial(name: string, gate: Gate): Promise<{ worst: number; callsPerSec: number }> {
  const random = sequence(99);
  const arrivals: number[] = [];
  const send = async () => {
    await delay(Math.floor(random() * PERIOD * LATENCY));
    arrivals.push(Date.now());
    await delay(Math.floor(random() * PERIOD * LATENCY));
  };
  await delay(PERIOD * 0.9);
  let remaining = CALLS;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (remaining-- > 0) await gate(send);
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  const worst = maxInSlidingWindow(arrivals, PERIOD);
  console.log(
    `${name.padEnd(22)} max arrivals in any ${PERIOD} ms: ${worst} (quota ${N}) ${worst > N ? 'OVER QUOTA' : 'ok'}; ` +
      `${(CALLS / seconds).toFixed(1)} calls/s (long-run limit ${((N * 1000) / PERIOD).toFixed(1)})`,
  );
  return { worst, callsPerSec: CALLS / seconds };
}

async function overhead(): Promise<number> {
  const limiter = new Limiter('metrics', null);
  const count = 100_000;
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: count }, () => limiter.run(async () => 1)));
  const ns = Number(process.hrtime.bigint() - started);
  console.log(`overhead without quota: ${(ns / count / 1000).toFixed(2)} µs per call (${count} calls)`);
  return ns / count / 1000;
}

const exact = new Limiter('statistic', { calls: N, periodMs: PERIOD });
const ours = await trial('exact sliding window', (send) => exact.run(send));
const reservoir = new Bottleneck({ reservoir: N, reservoirRefreshAmount: N, reservoirRefreshInterval: PERIOD });
const theirs = await trial('bottleneck reservoir', (send) => reservoir.schedule(send));
await reservoir.stop({ dropWaitingJobs: true });
const overheadUs = await overhead();
const targets: Target[] = [target('exact limiter: most arrivals in one window', ours.worst, 'max', N)];
report(
  'limiter',
  { calls: CALLS, quota: `${N}/${PERIOD}ms`, exact: ours, bottleneck: theirs, overheadUsPerCall: overheadUs },
  targets,
);
