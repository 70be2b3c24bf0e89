#!/usr/bin/env -S node --max-semi-space-size=2 --heap-growing-percent=20
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run by `npm ci` through `prepare`).
// The V8 flags above keep the heap near what is live (default: young space up to 3 × 16 MB, old space grown by up to
// 4× after each major GC, so RSS reached ~250 MB during a backfill with ~30 MB live). They apply when this file is
// executed (the image's ENTRYPOINT, the npm bin link); `node bin/cdn-collector.js` runs with node's defaults.
// Figures: docs/BENCHMARKS.md.
import '../dist/cli/main.js';
