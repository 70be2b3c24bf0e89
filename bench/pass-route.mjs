#!/usr/bin/env node
/**
 * The route of one pass, measured as it runs: which of the collector's own functions, files and folders one scheduled
 * pass of one job executes, from the pass's start to its confirmed checkpoint (V8's precise coverage, taken before and
 * after the pass; the simulator runs in its own process). `npm run build && node bench/pass-route.mjs [--list]`.
 * Prints a line per API; `--list` names the functions. Reads dist/, so a figure is of the code as built.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const list = process.argv.includes('--list');
const load = (path) => import(pathToFileURL(join(dist, path)).href);

const simArgs = [join(root, 'bin', 'cdn-collector.js'), 'sim'];
const sim = spawn(process.execPath, simArgs, { stdio: ['ignore', 'pipe', 'ignore'] });
const info = JSON.parse(await new Promise((resolve) => createInterface({ input: sim.stdout }).once('line', resolve)));
const { loadConfigFile: loadConfig } = await load('config/loader.js');
const { createRuntime } = await load('app/runtime.js');
const { systemClock } = await load('clock.js');
const { createLogger } = await load('log.js');
const { API_NAMES } = await load('spec/apis.js');

/** A runtime on fresh state, so that each job's first pass has spans to collect. */
async function freshRuntime() {
  const dir = mkdtempSync(join(tmpdir(), 'pass-route-'));
  const file = join(dir, 'collector.yaml');
  const config = {
    api: { baseUrl: info.url, token: info.token },
    accounts: info.accounts,
    jobs: { dvr: { streams: [info.streams[0]] } },
    sink: { type: 'file', path: join(dir, 'points.lp') },
    state: { dir: join(dir, 'state'), initialLookback: '2h' },
  };
  writeFileSync(file, JSON.stringify(config));
  return createRuntime(loadConfig(file), systemClock, createLogger({ level: 'silent' }));
}

/** The job a line measures: the API's first checkpointed job (DVR has none). */
function firstJob(runtime, api) {
  const jobs = runtime.collector.jobs.filter((j) => j.api === api);
  return jobs.find((j) => j.checkpointed) ?? jobs[0];
}

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

// A first runtime and pass load and run every module once, so that the measured pass counts no start-up code.
const warm = await freshRuntime();
await Promise.all(API_NAMES.map((api) => warm.collector.runPass([firstJob(warm, api)], 'live')));
await warm.close();

const rt = await freshRuntime();
for (const api of API_NAMES) {
  const job = firstJob(rt, api);
  await session.post('Profiler.takePreciseCoverage'); // resets the counts
  const [result] = await rt.collector.runPass([job], 'live');
  const { result: scripts } = await session.post('Profiler.takePreciseCoverage');
  const ran = [];
  for (const script of scripts) {
    if (!script.url.startsWith(pathToFileURL(dist).href)) continue;
    const file = relative(dist, fileURLToPath(script.url)).replace(/\.js$/, '.ts');
    for (const fn of script.functions) {
      if (fn.ranges[0].count > 0 && fn.ranges[0].startOffset > 0) ran.push(`${file} ${fn.functionName || '(arrow)'}`);
    }
  }
  const files = new Set(ran.map((r) => r.split(' ')[0]));
  const folders = new Set([...files].map((f) => (f.includes('/') ? f.slice(0, f.indexOf('/')) : '.')));
  const named = ran.filter((r) => !r.endsWith('(arrow)')).length;
  console.log(
    `${api.padEnd(10)} ${job.key.padEnd(28)} spans ${String(result.spans).padStart(3)}  functions ${ran.length} ` +
      `(${named} named) in ${files.size} files, ${folders.size} folders: ${[...folders].sort().join(' ')}`,
  );
  if (list) for (const r of ran.sort()) console.log(`  ${r}`);
}
await rt.close();
session.disconnect();
sim.kill('SIGTERM');
