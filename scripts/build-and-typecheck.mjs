#!/usr/bin/env node
// `npm test`'s first step: the build (dist/, which the CLI tests run) and the type check of src/ and test/ are two
// independent tsc programs, each mostly on one core; run side by side they take the time of the longer one.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const runs = [
  ['build', ['-p', 'tsconfig.build.json']],
  ['typecheck', ['-p', 'tsconfig.json', '--noEmit']],
].map(
  ([name, args]) =>
    new Promise((done) => {
      const child = spawn(process.execPath, [tsc, ...args], { stdio: 'inherit' });
      child.once('close', (code, signal) => done({ name, ok: code === 0, code: code ?? signal }));
    }),
);
const failed = (await Promise.all(runs)).filter((r) => !r.ok);
for (const r of failed) console.error(`error: ${r.name} failed (tsc exit ${r.code})`);
process.exit(failed.length > 0 ? 1 : 0);
