import { normalize, subtractAll, type SecondsInterval } from '../../spec/dvr.js';
import type { SimContext } from './context.js';
import { hash32, unit } from './rng.js';
import type { World } from './world.js';

/**
 * Network-DVR recordings of the simulated world, per DVR stream and node, in whole unix seconds.
 *
 * What is recorded is computed from the clock rather than stored, so it grows by itself:
 * [start, now) for an alive stream, [start, stop) for one that stopped, minus seed-derived breaks, minus what was
 * deleted, clipped to the DVR window. Only deletions are state. Chosen where the spec is silent ("not shown"):
 * - recording started 1–6 h before the simulator first served DVR (some starts fall outside the 4 h window);
 * - the first stream of each account is alive, others are alive with probability 0.6; a stream that is not alive
 *   stopped 5–60 min before that moment and never grows;
 * - the first node records every stream; others have DVR enabled with probability 0.75 (disabled = nothing recorded);
 * - each clock hour of each stream × node has, with probability 0.5, one break of 10–120 s that starts between
 *   minute 10 and minute 50, so the first 10 minutes of every hour are gap-free (tests rely on it);
 * - ranges older than the window drop off to the second (a range crossing now − window is cut there);
 * - a deletion only removes what was recorded when it was made: a part after "now" is recorded later as usual,
 *   which is how an alive stream accumulates again after delete-all (spec rule).
 */
export interface DvrNodeSnapshot {
  node: string;
  alive: boolean;
  enabled: boolean;
  windowSec: number;
  ranges: SecondsInterval[];
}

const HOUR_SEC = 3600;
const ALIVE_SHARE = 0.6;
const ENABLED_SHARE = 0.75;
const BREAK_SHARE = 0.5;
/** Breaks start in [BREAK_EARLIEST, BREAK_EARLIEST + BREAK_SPREAD) seconds into an hour. */
const BREAK_EARLIEST = 600;
const BREAK_SPREAD = 2400;
const BREAK_MIN_SEC = 10;
const BREAK_EXTRA_SEC = 111;

interface StreamTimeline {
  alive: boolean;
  startSec: number;
  /** Last recorded second (exclusive) of a stream that is not alive. */
  stopSec: number | undefined;
}

export class DvrModel {
  /** Deleted intervals per `account \u0000 stream \u0000 node`, normalized. */
  private readonly deleted = new Map<string, SecondsInterval[]>();

  constructor(
    private readonly world: World,
    /** The moment the simulator first served DVR: recordings are placed relative to it. */
    private readonly originSec: number,
  ) {}

  /** The stream's DVR record on every node, as of `nowSec`. */
  snapshot(account: string, stream: string, nowSec: number, windowSec: number): DvrNodeSnapshot[] {
    const timeline = this.timeline(account, stream);
    return this.world.nodes.map((node) => {
      const enabled = this.enabled(account, stream, node);
      const ranges = enabled ? this.recorded(account, stream, node, timeline, nowSec, windowSec) : [];
      return { node, alive: timeline.alive, enabled, windowSec, ranges };
    });
  }

  /** Removes [cut.from, cut.to) to the second, as far as it was recorded by `nowSec`. */
  deleteRange(account: string, stream: string, node: string, cut: SecondsInterval, nowSec: number): void {
    const upTo = Math.min(cut.to, nowSec);
    if (upTo <= cut.from) return;
    const key = stateKey(account, stream, node);
    this.deleted.set(key, normalize([...(this.deleted.get(key) ?? []), { from: cut.from, to: upTo }]));
  }

  /** Removes everything recorded up to `nowSec`; an alive stream records again from then on. */
  deleteAll(account: string, stream: string, node: string, nowSec: number): void {
    this.deleteRange(account, stream, node, { from: Number.MIN_SAFE_INTEGER, to: nowSec }, nowSec);
  }

  private recorded(
    account: string,
    stream: string,
    node: string,
    timeline: StreamTimeline,
    nowSec: number,
    windowSec: number,
  ): SecondsInterval[] {
    const from = Math.max(timeline.startSec, nowSec - windowSec);
    const to = timeline.stopSec === undefined ? nowSec : Math.min(timeline.stopSec, nowSec);
    if (to <= from) return [];
    const cuts = [
      ...this.breaks(account, stream, node, from, to),
      ...(this.deleted.get(stateKey(account, stream, node)) ?? []),
    ];
    return subtractAll([{ from, to }], cuts);
  }

  private breaks(account: string, stream: string, node: string, from: number, to: number): SecondsInterval[] {
    const out: SecondsInterval[] = [];
    for (let hour = Math.floor(from / HOUR_SEC); hour * HOUR_SEC < to; hour++) {
      if (unit(this.world.seed, account, stream, node, 'break', hour) >= BREAK_SHARE) continue;
      const h = hash32(this.world.seed, account, stream, node, 'break-at', hour);
      const start = hour * HOUR_SEC + BREAK_EARLIEST + (h % BREAK_SPREAD);
      out.push({ from: start, to: start + BREAK_MIN_SEC + ((h >>> 12) % BREAK_EXTRA_SEC) });
    }
    return out;
  }

  private timeline(account: string, stream: string): StreamTimeline {
    const seed = this.world.seed;
    const first = this.world.accounts.find((a) => a.name === account)?.streams[0]?.name === stream;
    const alive = first || unit(seed, account, stream, 'alive') < ALIVE_SHARE;
    const startSec = this.originSec - HOUR_SEC - (hash32(seed, account, stream, 'start') % (5 * HOUR_SEC));
    const stopSec = alive ? undefined : this.originSec - 300 - (hash32(seed, account, stream, 'stop') % 3300);
    return { alive, startSec, stopSec };
  }

  private enabled(account: string, stream: string, node: string): boolean {
    return node === this.world.nodes[0] || unit(this.world.seed, account, stream, node, 'enabled') < ENABLED_SHARE;
  }
}

const models = new WeakMap<World, DvrModel>();

/** The DVR state of one simulator instance (its world), created on first use. */
export function dvrModelFor(ctx: SimContext): DvrModel {
  let model = models.get(ctx.world);
  if (!model) {
    model = new DvrModel(ctx.world, nowSeconds(ctx));
    models.set(ctx.world, model);
  }
  return model;
}

export function nowSeconds(ctx: SimContext): number {
  return Math.floor(ctx.clock.now() / 1000);
}

function stateKey(account: string, stream: string, node: string): string {
  return `${account}\u0000${stream}\u0000${node}`;
}
