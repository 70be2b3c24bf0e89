#!/usr/bin/env node
/**
 * Runs the benchmarks one after another, each in its own process: `node bench/run.js [--quick] [name…]`.
 * The benches are TypeScript; each is bundled with esbuild (vitest's dependency) into node_modules/.cache/bench first,
 * so no extra build step or loader is needed. Figures go to bench/results.json; the exit code is 1 if a target was
 * missed. `npm run bench` builds dist/ first (the simulator process needs it).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BENCHES = [
  'quota',
  'sink-throughput',
  'daemon-soak',
  'big-account',
  'many-accounts',
  'limiter',
  'bottleneck-window',
  'startup',
];
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const names = args.filter((a) => !a.startsWith('--'));
const unknown = names.filter((n) => !BENCHES.includes(n));
if (unknown.length > 0) {
  console.error(`unknown bench ${unknown.join(', ')}; known: ${BENCHES.join(', ')}`);
  process.exit(2);
}
// The collector's processes run with the V8 flags of bin/cdn-collector.js's shebang (as the image runs it); so do the
// benches, and sink-throughput runs its bare-client reference without them (BENCH_NODE_FLAGS names them).
const shebang = readFileSync(join(root, 'bin', 'cdn-collector.js'), 'utf8').split('\n')[0];
const nodeFlags = shebang
  .replace(/^#!\/usr\/bin\/env -S node/, '')
  .trim()
  .split(/\s+/)
  .filter(Boolean);
const outDir = join(root, 'node_modules', '.cache', 'bench');
mkdirSync(outDir, { recursive: true });
const failed = [];
const ran = [];
for (const name of names.length > 0 ? names : BENCHES) {
  const outfile = join(outDir, `${name}.mjs`);
  await build({
    entryPoints: [join(root, 'bench', `${name}.ts`)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile,
    logLevel: 'warning',
  });
  console.log(`\n== ${name}${quick ? ' (quick)' : ''}  (load average before: ${loadText()})`);
  const started = Date.now();
  const run = spawnSync(process.execPath, ['--expose-gc', ...nodeFlags, outfile, ...(quick ? ['--quick'] : [])], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_ROOT: root, BENCH_QUICK: quick ? '1' : '0', BENCH_NODE_FLAGS: nodeFlags.join(' ') },
  });
  console.log(`   (${((Date.now() - started) / 1000).toFixed(0)} s; load average after: ${loadText()})`);
  if (run.status !== 0) failed.push(name);
  ran.push(name);
}
printSummary(ran);
if (failed.length > 0) {
  console.log(`\ntargets missed or errors in: ${failed.join(', ')} (see bench/results.json)`);
  process.exitCode = 1;
}

function loadText() {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

/** One table of every target of the benches just run, from bench/results.json (what docs/BENCHMARKS.md quotes). */
function printSummary(benches) {
  const results = JSON.parse(readFileSync(process.env.BENCH_RESULTS ?? join(root, 'bench', 'results.json'), 'utf8'));
  const byName = (name) => results[name] ?? results[name.replace(/-(\w)/g, (_, c) => c.toUpperCase())];
  console.log('\n== summary (value, target, value ÷ target)');
  for (const name of benches) {
    const r = byName(name);
    if (!r) continue;
    console.log(`${name} (load average ${(r.machine?.loadAverage ?? []).join(' ')})`);
    for (const t of r.targets ?? []) {
      const ratio = t.ratio === undefined ? '' : `  ÷ ${t.ratio}`;
      console.log(
        `  ${t.met ? 'ok    ' : 'MISSED'} ${t.name}: ${t.value}${t.unit ?? ''} (${t.kind === 'max' ? '≤' : '≥'} ` +
          `${t.limit}${t.unit ?? ''})${ratio}`,
      );
    }
  }
}
