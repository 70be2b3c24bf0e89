/**
 * Hostile passes: where gathering a span, writing the span before it and confirming it meet. A write that fails while
 * the next span is read, a part handed over mid-read whose write fails, a span set aside before a failed write, a
 * graceful stop during a write retried through an outage, an abort while a span is written, a checkpoint that cannot
 * be written: which error the pass reports and how loudly, what stays unconfirmed, and the pass's counts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { CHECKPOINT_CONDITION } from '../../src/collector/job-state.js';
import { ApiError, NetworkError } from '../../src/http/errors.js';
import { SINGLE_CALL } from '../../src/paging/walk.js';
import type { Point } from '../../src/points.js';
import { SinkError } from '../../src/sink/errors.js';
import type { Sink, WriteResult } from '../../src/sink/types.js';
import type { CollectJob, PointsHandOff, Span } from '../../src/sources/common/types.js';
import { fileNameOf } from '../../src/state/checkpoint-file.js';
import { CheckpointStore } from '../../src/state/checkpoints.js';
import { SetAsideStore } from '../../src/state/set-aside.js';
import { evaluateHealth } from '../../src/telemetry/health.js';
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { capturedLogger } from '../helpers/captured-log.js';
import { lastErrors, MIN, offlineCollector, spanIndex, T0 } from '../helpers/fake-job.js';

const request = { api: 'metrics' as const, method: 'GET', url: 'http://api.test/app/metrics/v1/' };
const noDatabase = () => new SinkError('s', 404, false, 'database not found');
const range = { from: T0, to: T0 + 3 * MIN };
const span = (i: number): Span => ({ from: T0 + i * MIN, to: T0 + (i + 1) * MIN });
const point = (i: number): Point => ({ measurement: 'm', tags: {}, fields: { v: i }, time: T0 + i * MIN }) as Point;

const dirs: string[] = [];
const stores: CheckpointStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

/** The PassResult of the hostile job with these counts, ended by an error matching `error`. */
const passResult = (counts: { spans: number; points: number; setAside: number }, error: RegExp) => ({
  key: 'hostile/job',
  ...counts,
  error: expect.stringMatching(error),
  errorCode: expect.stringMatching(/^CDN_ERR_/),
});

/** A deferred the test settles by hand, to order a read against a write. */
function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((res) => (resolve = res));
  return { promise, resolve };
}

interface HarnessOptions {
  /** Span i's read: its points, handing parts over through `handOff`, or its error. */
  read: (i: number, handOff: PointsHandOff | undefined) => Promise<Point[]> | Point[];
  /** The n-th write (0-based) of `points`. */
  write?: (points: readonly Point[], n: number) => Promise<WriteResult> | WriteResult;
  sinkRetryMs?: number;
  keys?: string[];
}

/** A Collector of checkpointed one-minute jobs over real stores in a temp dir, a captured log, a ManualClock. */
async function harness(options: HarnessOptions) {
  const dir = mkdtempSync(join(tmpdir(), 'hostile-pass-'));
  dirs.push(dir);
  const writes: number[][] = [];
  const sink: Sink = {
    name: 's',
    async write(points) {
      writes.push(points.map((p) => p.fields.v as number));
      return (await options.write?.(points, writes.length - 1)) ?? { written: points.length, rejected: 0 };
    },
    flush: async () => {},
    close: async () => {},
  };
  const jobs: CollectJob[] = (options.keys ?? ['hostile/job']).map((key) => ({
    key,
    api: 'metrics',
    rule: { stepMs: MIN, delayMs: 0, maxSpanMs: MIN },
    checkpointed: true,
    callsFor: () => SINGLE_CALL,
    collect: async (s, _http, handOff) => options.read(spanIndex(s), handOff),
  }));
  const clock = new ManualClock(T0 + 3 * MIN);
  const store = await CheckpointStore.open(dir);
  stores.push(store);
  const { store: aside } = await SetAsideStore.open(dir, { clock });
  const telemetry = new Telemetry({ clock });
  const { log, text } = capturedLogger();
  const collector = offlineCollector({
    jobs,
    sink,
    store,
    aside,
    telemetry,
    clock,
    log,
    horizonMs: 24 * 60 * MIN,
    initialLookbackMs: 3 * MIN,
    sinkRetryMs: options.sinkRetryMs ?? 0,
  });
  const lines = () =>
    text()
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; msg: string; event?: string; job?: string });
  /** Lines at warn or above that say a span failed: a failed write is the sink's to report, once per run. */
  const loudSpanFailures = () => lines().filter((l) => l.level >= 40 && l.event === 'span_failed');
  const confirmed: number[] = [];
  const onSpan = (s: Span) => confirmed.push(spanIndex(s));
  return {
    dir,
    collector,
    job: jobs[0]!,
    jobs,
    store,
    aside,
    telemetry,
    clock,
    writes,
    lines,
    loudSpanFailures,
    onSpan,
    confirmed,
  };
}

describe('a pass whose write fails while the next span is read', () => {
  it("and the read fails too: the write's error is the pass's, told quietly; nothing is confirmed", async () => {
    const readOneFailed = deferred();
    const t = await harness({
      read: (i) => {
        if (i === 0) return [point(0)];
        readOneFailed.resolve();
        throw new NetworkError(request, 'ECONNRESET');
      },
      write: async () => {
        await readOneFailed.promise;
        throw noDatabase();
      },
    });
    const result = await t.collector.runOnce(t.job, 'backfill', range, t.onSpan);
    expect(result).toEqual(passResult({ spans: 0, points: 0, setAside: 0 }, /database not found/));
    expect(t.store.confirmed(t.job.key)).toEqual([]);
    expect(t.confirmed).toEqual([]);
    expect(t.loudSpanFailures()).toEqual([]);
    expect(lastErrors(t.collector)[t.job.key]?.error).toMatch(/database not found/);
  });
});

describe('a span read in parts (PointsHandOff) whose part write fails mid-read', () => {
  it.each([
    ['a database that is gone', noDatabase(), /database not found/],
    ['a write the database refuses whole (400)', new SinkError('s', 400, false, 'bad request'), /bad request/],
  ])('%s ends the pass as a failed write: the read stops, nothing set aside, told quietly', async (_, err, said) => {
    const reads: number[] = [];
    const t = await harness({
      read: async (i, handOff) => {
        reads.push(i);
        await handOff!([point(i)]);
        await handOff!([point(i)]);
        return [point(i)];
      },
      write: (_points, n) => {
        if (n === 1) throw err;
        return { written: 1, rejected: 0 };
      },
    });
    const result = await t.collector.runOnce(t.job, 'backfill', range, t.onSpan);
    expect(result).toEqual(passResult({ spans: 0, points: 1, setAside: 0 }, said));
    expect(reads).toEqual([0]);
    expect(t.writes).toHaveLength(2);
    expect(t.aside.list(t.job.key)).toEqual([]);
    expect(t.store.confirmed(t.job.key)).toEqual([]);
    expect(t.confirmed).toEqual([]);
    expect(t.loudSpanFailures()).toEqual([]);
  });
});

describe('a span set aside, then a failed write in the same pass', () => {
  it('counts the set-aside span, keeps its entry, reports the write and confirms nothing', async () => {
    const t = await harness({
      read: (i) => {
        if (i === 0) throw new ApiError({ status: 400, body: {}, request });
        return [point(i)];
      },
      write: () => {
        throw noDatabase();
      },
    });
    const result = await t.collector.runOnce(t.job, 'backfill', range, t.onSpan);
    expect(result).toEqual(passResult({ spans: 0, points: 0, setAside: 1 }, /database not found/));
    expect(t.aside.list(t.job.key)).toMatchObject([span(0)]);
    expect(t.writes).toEqual([[1]]);
    expect(t.store.confirmed(t.job.key)).toEqual([]);
    expect(t.confirmed).toEqual([]);
  });
});

describe('a graceful stop while a write is retried through a database outage', () => {
  it('gives up at once (the clock never moves), confirms nothing, reads no further span and logs quietly', async () => {
    const t = await harness({
      read: (i) => [point(i)],
      write: () => {
        throw new SinkError('s', undefined, true, 'failed: ECONNREFUSED');
      },
      sinkRetryMs: 60 * MIN,
    });
    const pass = t.collector.runOnce(t.job, 'backfill', range, t.onSpan);
    await vi.waitFor(() => expect(t.lines().some((l) => l.event === 'sink_write_retry')).toBe(true));
    let stopped = false;
    void t.collector.stop().then(() => (stopped = true));
    await vi.waitFor(() => expect(stopped).toBe(true));
    expect(t.clock.now()).toBe(T0 + 3 * MIN);
    expect(await pass).toEqual(passResult({ spans: 0, points: 0, setAside: 0 }, /ECONNREFUSED/));
    expect(t.writes).toEqual([[0]]);
    expect(t.store.confirmed(t.job.key)).toEqual([]);
    expect(t.confirmed).toEqual([]);
    expect(t.loudSpanFailures()).toEqual([]);
  });
});

describe('an abort while span 1 is read and span 0 written', () => {
  /** Span 0's write is held until the abort; span 1's read ends with the abort (its call dropped). */
  async function abortedPass(writeOutcome: () => WriteResult) {
    const cancel = new AbortController();
    const writing = deferred();
    const release = deferred();
    const t = await harness({
      read: async (i) => {
        if (i === 0) return [point(0)];
        await new Promise((resolve) => cancel.signal.addEventListener('abort', resolve));
        throw cancel.signal.reason;
      },
      write: async () => {
        writing.resolve();
        await release.promise;
        return writeOutcome();
      },
    });
    void t.collector.runOnce(t.job, 'backfill', range, t.onSpan, { signal: cancel.signal });
    await writing.promise;
    cancel.abort();
    release.resolve();
    await t.collector.settled([t.job]);
    return t;
  }

  it('a write that succeeds confirms span 0 (and reports it); the pass ends without an error', async () => {
    const t = await abortedPass(() => ({ written: 1, rejected: 0 }));
    expect(t.confirmed).toEqual([0]);
    expect(t.store.confirmed(t.job.key)).toEqual([span(0)]);
    expect(lastErrors(t.collector)[t.job.key]).toBeUndefined();
  });

  it("a write that fails is still the pass's error: the abort does not make the job look recovered", async () => {
    const t = await abortedPass(() => {
      throw noDatabase();
    });
    expect(t.confirmed).toEqual([]);
    expect(t.store.confirmed(t.job.key)).toEqual([]);
    expect(lastErrors(t.collector)[t.job.key]?.error).toMatch(/database not found/);
  });
});

/** Makes the checkpoint file of `key` unwritable: a non-empty directory where its rename must land. */
function blockCheckpoint(dir: string, key: string): () => void {
  const blocker = join(dir, fileNameOf(key));
  rmSync(blocker, { force: true });
  mkdirSync(blocker);
  writeFileSync(join(blocker, 'in-the-way'), '');
  return () => rmSync(blocker, { recursive: true });
}

describe('a checkpoint that cannot be written when a span is confirmed', () => {
  it('keeps a set-aside span listed and pending, counts its written points, and /healthz names the job', async () => {
    let healed = false;
    const t = await harness({
      read: (i) => {
        if (i === 0 && !healed) throw new ApiError({ status: 400, body: {}, request });
        return [point(i)];
      },
    });
    await t.collector.runOnce(t.job, 'live');
    expect(t.aside.list(t.job.key)).toMatchObject([span(0)]);
    const unblock = blockCheckpoint(t.dir, t.job.key);
    healed = true;
    t.clock.advance(10 * MIN); // span 0's retry is due
    const failed = await t.collector.runOnce(t.job, 'backfill', range, t.onSpan);
    // Its point was written (idempotently rewritten on a later pass), not confirmed.
    expect(failed).toMatchObject({ spans: 0, points: 1, setAside: 0, error: expect.any(String) });
    expect(t.confirmed).toEqual([]);
    expect(t.aside.list(t.job.key)).toMatchObject([{ ...span(0), attempts: 1 }]);
    expect(t.store.missing(t.job.key, T0, T0 + 3 * MIN)).toEqual([span(0)]);
    const health = () => evaluateHealth(t.telemetry, { maxLagMs: 24 * 60 * MIN });
    expect(health().reasons?.[CHECKPOINT_CONDITION]).toContain(t.job.key);

    unblock();
    expect(await t.collector.runOnce(t.job, 'backfill', range, t.onSpan)).toMatchObject({ spans: 1, points: 1 });
    expect(t.confirmed).toEqual([0]);
    expect(t.aside.list(t.job.key)).toEqual([]);
    expect(health().status).toBe('ok');
  });

  it("another job's checkpoint written meanwhile does not clear the condition of the job that cannot", async () => {
    const t = await harness({ read: (i) => [point(i)], keys: ['hostile/a', 'hostile/b'] });
    const [a, b] = t.jobs as [CollectJob, CollectJob];
    const unblock = blockCheckpoint(t.dir, a.key);
    expect((await t.collector.runOnce(a, 'live')).error).toBeDefined();
    expect((await t.collector.runOnce(b, 'live')).spans).toBe(3);
    const health = () => evaluateHealth(t.telemetry, { maxLagMs: 24 * 60 * MIN });
    expect(health().reasons?.[CHECKPOINT_CONDITION]).toContain(a.key);
    unblock();
    expect((await t.collector.runOnce(a, 'live')).spans).toBe(3);
    expect(health().status).toBe('ok');
  });
});
