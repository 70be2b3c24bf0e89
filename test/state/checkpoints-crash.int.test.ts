import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../src/state/checkpoints.js';
import { compileForNode } from './compile-child.js';

const KEY = 'statistic/acme/countries';
/** Where crash-child.ts starts confirming. */
const START = Date.UTC(2001, 0, 1);
let buildDir: string;
let childScript: string;
let stateDir: string;

beforeAll(async () => {
  // Inside node_modules so the compiled child resolves its packages (zod) like the project does.
  buildDir = await mkdtemp(join(resolve('node_modules'), '.state-crash-'));
  childScript = await compileForNode('test/state/crash-child.ts', buildDir);
  stateDir = await mkdtemp(join(tmpdir(), 'state-crash-'));
});

afterAll(async () => {
  await rm(buildDir, { recursive: true, force: true });
  await rm(stateDir, { recursive: true, force: true });
});

/** Runs the child until it reported `reports` resolved confirmations, then SIGKILLs it; returns every mark it printed.
 * */
function runAndKill(reports: number): Promise<{ ready: number; marks: number[] }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [childScript, stateDir, KEY], { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    let errors = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      if ((text.match(/^mark /gm)?.length ?? 0) >= reports) child.kill('SIGKILL');
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
    child.on('error', fail);
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') return fail(new Error(`child exited with ${code}: ${errors}`));
      const lines = text.split('\n').filter((line) => line.length > 0);
      const ready = Number(lines.find((line) => line.startsWith('ready '))?.slice(6));
      const marks = lines.filter((line) => line.startsWith('mark ')).map((line) => Number(line.slice(5)));
      done({ ready, marks });
    });
  });
}

describe('checkpoint store under kill -9', () => {
  it('keeps a valid file and never loses a resolved confirmation', async () => {
    let lastResolved = 0;
    for (const reports of [3, 40, 7, 150, 1, 90]) {
      const { ready, marks } = await runAndKill(reports);
      // The child resumed from what the previous child had made durable.
      expect(ready).toBeGreaterThanOrEqual(lastResolved);
      expect(marks.length).toBeGreaterThanOrEqual(reports);
      lastResolved = Math.max(lastResolved, ...marks);

      // Reopening takes over the dead child's lock, cleans temp files and loads a valid file.
      const store = await CheckpointStore.open(stateDir);
      try {
        expect(store.watermark(KEY)).toBeGreaterThanOrEqual(lastResolved);
        const spans = store.confirmed(KEY);
        expect(spans[0]?.from).toBe(START);
        expect(spans[0]?.to).toBe(store.watermark(KEY));
        expect((await readdir(stateDir)).filter((name) => name.includes('.tmp-'))).toEqual([]);
      } finally {
        await store.close();
      }
      lastResolved = Math.max(lastResolved, (await readLastWatermark()) ?? 0);
    }
    expect(lastResolved).toBeGreaterThan(0);
  });
});

async function readLastWatermark(): Promise<number | undefined> {
  const file = (await readdir(stateDir)).find((name) => name.startsWith('cp-'));
  if (!file) return undefined;
  return (JSON.parse(await readFile(join(stateDir, file), 'utf8')) as { watermark: number }).watermark;
}
