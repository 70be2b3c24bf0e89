#!/usr/bin/env -S node --max-semi-space-size=2 --heap-growing-percent=20 --no-liftoff
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run by `npm ci` through `prepare`); each command's
// action loads when it runs (`import()`), so `--help` loads the definitions only.
// The V8 flags above keep the heap near what is live (default: young space up to 3 × 16 MB, old space grown by up to
// 4× after each major GC, so RSS reached ~250 MB during a backfill with ~30 MB live); --no-liftoff compiles undici's
// WebAssembly HTTP parser once (optimised) instead of in two tiers, 10 MB less RSS. They apply when this file is
// executed (the image's ENTRYPOINT, the npm bin link); `node bin/cdn-collector.js` runs with node's defaults.
// Figures: docs/BENCHMARKS.md.
import '../dist/cli/main.js';
