#!/usr/bin/env node
/**
 * Bundles the compiled CLI (dist/cli/main.js, from tsc) into dist/bundle/ for start-up time (issue 14 goal 5): node
 * resolves, reads and links each ES module separately, and imports commander (CommonJS) through its ESM wrapper; with
 * the definitions and commander in one file, `--help`'s time over bare node about halves (1.85x -> 1.45x its CPU). Each command's action
 * stays its own file (`import('./run-action.js')` is a split point), code shared by several files goes to chunks, so
 * every module exists once (one CollectorError class). Packages other than commander stay in node_modules (pino loads
 * its transports by path; undici and zod load when an action needs them). All files sit at the same depth as dist/*
 * so `new URL('../../package.json', import.meta.url)` still finds the package. dist/bundle/metafile.json maps each
 * output file to its inputs (test/cli/lazy-load.test.ts reads it). Run by `npm run build` after tsc.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'bundle');
const entry = join(root, 'dist', 'cli', 'main.js');
const BUNDLED_PACKAGES = new Set(['commander']);
// The modules main.js imports statically (the command definitions): loaded before any action can run.
const definitions = [...readFileSync(entry, 'utf8').matchAll(/^import [^;]*?from '(\.[^']+)';$/gm)].map((m) => m[1]);

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: [entry],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir,
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  metafile: true,
  // Chained to tsc's maps: with --enable-source-maps a stack points into src/*.ts, as it did from dist/.
  sourcemap: true,
  logLevel: 'warning',
  // commander is CommonJS: its require('node:…') calls need a require in an ES module.
  banner: { js: "import { createRequire as __bundleCreateRequire } from 'node:module';\nconst require = __bundleCreateRequire(import.meta.url);" },
  plugins: [
    {
      // esbuild puts each module in a chunk per set of entry points reaching it, so the definitions, each reached by
      // main and a different few actions, would be a dozen chunks to load for `--help`. Every action (a dynamic
      // import's target) runs after main has loaded all definitions: importing them from each action as well changes
      // nothing at run time and puts them in one chunk.
      name: 'definitions-in-one-chunk',
      setup(b) {
        const lateTargets = new Set();
        b.onResolve({ filter: /^\./ }, (args) => {
          if (args.kind === 'dynamic-import') lateTargets.add(resolve(args.resolveDir, args.path));
          return undefined;
        });
        b.onLoad({ filter: /\.js$/ }, (args) => {
          if (!lateTargets.has(args.path)) return undefined;
          const imports = definitions.map((path) => `import ${JSON.stringify(resolve(dirname(entry), path))};\n`).join('');
          return { contents: imports + readFileSync(args.path, 'utf8'), loader: 'js', resolveDir: dirname(args.path) };
        });
      },
    },
    {
      // commander requires child_process at load, for executable subcommands, which this CLI has none of; loading it
      // pulls in net, dgram and streams (~10 ms of start-up). Deferred to its first use.
      name: 'commander-child-process-on-use',
      setup(b) {
        b.onResolve({ filter: /^node:child_process$/ }, (args) =>
          /\/node_modules\/commander\//.test(args.importer) ? { path: args.path, namespace: 'on-use' } : undefined,
        );
        b.onLoad({ filter: /.*/, namespace: 'on-use' }, (args) => ({
          contents: `let loaded;\nmodule.exports = new Proxy({}, { get: (_, key) => (loaded ??= require(${JSON.stringify(args.path)}))[key] });\n`,
          loader: 'js',
        }));
      },
    },
    {
      name: 'packages-external-but-commander',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) => {
          const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
          return BUNDLED_PACKAGES.has(name) || args.path.startsWith('node:') ? undefined : { path: args.path, external: true };
        });
      },
    },
  ],
});
writeFileSync(join(outdir, 'metafile.json'), JSON.stringify(result.metafile));
