// Child process of checkpoints-crash.test.ts: confirms spans of one key in a tight loop, out of order within each
// batch (like a parallel backfill), and prints the watermark after every confirmation that resolved. The parent
// kills it with SIGKILL at arbitrary moments.
import { CheckpointStore } from '../../src/state/checkpoints.js';

const [dir, key] = process.argv.slice(2) as [string, string];
const STEP = 60_000;
const BATCH = 8;

const store = await CheckpointStore.open(dir);
// Far enough in the past that the loop never reaches the future (checkpoints refuse implausible times).
const START = Date.UTC(2001, 0, 1);
let next = store.watermark(key) ?? START;
process.stdout.write(`ready ${next}\n`);
for (;;) {
  const spans = Array.from({ length: BATCH }, (_, i) => ({ from: next + i * STEP, to: next + (i + 1) * STEP }));
  next += BATCH * STEP;
  // Reverse order: later spans resolve first and must not move the watermark past the gaps before them.
  await Promise.all(
    spans.reverse().map(async (span) => {
      await store.confirm(key, span);
      process.stdout.write(`mark ${store.watermark(key)}\n`);
    }),
  );
}
