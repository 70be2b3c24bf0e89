/**
 * One temp dir per test run: every worker and every process the tests start get it as TMPDIR, so whatever a test
 * leaves in `os.tmpdir()` (state dirs, databases, configs) goes when the run ends instead of piling up in /tmp. A run
 * cut short leaves its dir; the next run removes the dirs whose run (pid) is gone. Runs side by side keep their own.
 *
 * The dir is made in memory (/dev/shm) where the machine has it: the tests' state files are written, synced and
 * renamed thousands of times, which a disk makes slow and a killed process does not need (what it wrote is in the
 * kernel either way). CDN_TEST_TMPDIR names another base, e.g. a disk to test on.
 */
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'cdn-collector-test-';
const OWNER = 'run.pid';
const ENV = 'CDN_COLLECTOR_RUN_TMPDIR';
const IN_MEMORY = '/dev/shm';

/** Where run dirs are made: CDN_TEST_TMPDIR, else /dev/shm when writable, else the system's temp dir. */
function baseDir(): string {
  if (process.env.CDN_TEST_TMPDIR) return process.env.CDN_TEST_TMPDIR;
  try {
    accessSync(IN_MEMORY, constants.W_OK);
    return IN_MEMORY;
  } catch {
    return tmpdir();
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the run dirs whose run has ended without removing them. */
function sweep(base: string): void {
  for (const name of readdirSync(base)) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = join(base, name);
    const owner = join(dir, OWNER);
    const pid = existsSync(owner) ? Number(readFileSync(owner, 'utf8')) : Number.NaN;
    if (Number.isInteger(pid) && !alive(pid)) rmSync(dir, { recursive: true, force: true });
  }
}

/** Makes `dir` (again, in watch mode) with its owner file and the tests' TMPDIR inside. */
function make(dir: string): void {
  mkdirSync(join(dir, 'tmp'), { recursive: true });
  writeFileSync(join(dir, OWNER), String(process.pid));
}

/** This run's temp dir, named once per process (the config may be read more than once). */
function runTmpDir(): string {
  const named = process.env[ENV];
  if (named) return named;
  const base = baseDir();
  sweep(base);
  const dir = mkdtempSync(join(base, PREFIX));
  make(dir);
  process.env[ENV] = dir;
  return dir;
}

/** The TMPDIR the tests see: inside the run dir, beside its owner file. */
export const testTmpDir = (): string => join(runTmpDir(), 'tmp');

/** A vitest reporter that gives each run (each rerun in watch mode) the dir, and removes it when the run ends. */
export const removeRunTmpDir = {
  onTestRunStart(): void {
    make(runTmpDir());
  },
  onTestRunEnd(): void {
    rmSync(runTmpDir(), { recursive: true, force: true });
  },
};
