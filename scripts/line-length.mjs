#!/usr/bin/env node
/*
 * No tracked source line is wider than 120 columns. Biome formats at that width but cannot break a string literal or
 * a comment, so this check (run by `npm run lint`) catches what it leaves. Dependency-free: plain Node and git.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const MAX_COLUMNS = 120;

const SOURCE = /\.[cm]?[tj]s$/;
const SKIPPED = /(^|\/)(node_modules|dist)\//;

/** Whether a repository path is source this check covers: TypeScript and JavaScript, and everything in bin/. */
export function isSource(path) {
  return (SOURCE.test(path) || path.startsWith('bin/')) && !SKIPPED.test(path);
}

/** The lines of one file wider than `max` columns (a column is one Unicode code point), numbered from 1. */
export function longLines(path, max = MAX_COLUMNS) {
  return readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .flatMap((text, index) => {
      const columns = [...text].length;
      return columns > max ? [{ path, line: index + 1, columns }] : [];
    });
}

/** The source files git tracks in the current directory's repository. */
export function trackedSources() {
  return execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter((path) => path !== '' && isSource(path));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const found = trackedSources().flatMap((path) => longLines(path));
  for (const { path, line, columns } of found) console.error(`${path}:${line}: ${columns} columns`);
  if (found.length > 0) {
    console.error(`${found.length} line(s) over ${MAX_COLUMNS} columns`);
    process.exit(1);
  }
}
