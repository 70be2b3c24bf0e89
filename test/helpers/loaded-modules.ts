/**
 * Which modules a CLI run loads: `node --import <hook>` registers a module-loader hook that appends the URL of every
 * ES module (and CommonJS entry reached by import) to a file. For start-up checks: `--help` must not load the
 * daemon's dependencies.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const BIN = resolve(import.meta.dirname, '../../bin/cdn-collector.js');

const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.LOADED_MODULES_LOG, url + '\\n');
  return next(url, context);
}
`;
const REGISTER = `import { register } from 'node:module';
register('./hooks.mjs', import.meta.url);
`;

/**
 * A module-loader hook for a process spawned with `env` (NODE_OPTIONS): `names()` lists the modules it has loaded so
 * far, by name (each once), while it runs; `remove()` deletes the hook's files.
 */
export function moduleHook(): { env: Record<string, string>; names(): string[]; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'loaded-modules-'));
  writeFileSync(join(dir, 'hooks.mjs'), HOOKS);
  writeFileSync(join(dir, 'register.mjs'), REGISTER);
  const log = join(dir, 'loaded.txt');
  writeFileSync(log, '');
  return {
    env: { NODE_OPTIONS: `--import ${join(dir, 'register.mjs')}`, LOADED_MODULES_LOG: log },
    names: () => [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean).map(moduleName))],
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The URLs of the modules `cdn-collector <args>` loaded (exit code ignored: argument errors are runs too). */
export async function loadedModules(args: string[], env: Record<string, string> = {}): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'loaded-modules-'));
  try {
    writeFileSync(join(dir, 'hooks.mjs'), HOOKS);
    writeFileSync(join(dir, 'register.mjs'), REGISTER);
    const log = join(dir, 'loaded.txt');
    writeFileSync(log, '');
    await promisify(execFile)(process.execPath, ['--import', join(dir, 'register.mjs'), BIN, ...args], {
      env: { ...process.env, ...env, LOADED_MODULES_LOG: log },
    }).catch((err: { code?: unknown }) => {
      if (typeof err.code !== 'number') throw err; // a failed spawn, not an exit code
    });
    return readFileSync(log, 'utf8').split('\n').filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A module URL as `package` (node_modules) or its path below the repository (dist/…), for messages and matching. */
export function moduleName(url: string): string {
  const dep = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (dep) return dep[1]!;
  return url.replace(/^file:\/\/.*?\/(dist|bin)\//, '$1/');
}

/** The modules `cdn-collector <args>` loaded, by name (each once). */
export async function loadedModuleNames(args: string[], env: Record<string, string> = {}): Promise<string[]> {
  return [...new Set((await loadedModules(args, env)).map(moduleName))];
}
