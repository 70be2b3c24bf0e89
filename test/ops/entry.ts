/**
 * The image's entry command as a child process: `bin/cdn-collector.js …` executed from the repository root (so its
 * shebang's node flags apply), on the compiled dist/ (rebuilt first when a source file is newer than it), exactly
 * what the Dockerfile's ENTRYPOINT runs.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
const ENTRY = join(ROOT, 'dist', 'cli', 'main.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts'))
      newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** Runs `npm run build` when dist/ is missing or older than src/ (`npm test` builds first, so usually a no-op). */
export function ensureBuilt(): void {
  if (existsSync(ENTRY) && statSync(ENTRY).mtimeMs >= newestMtime(join(ROOT, 'src'))) return;
  try {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'pipe' });
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`npm run build failed:\n${String(stdout ?? '')}${String(stderr ?? '')}`);
  }
}

export interface Entry {
  child: ChildProcess;
  /** stdout and stderr so far, for failure messages. */
  output(): string;
  /** Resolves with the exit code (or the signal name) once the process has exited. */
  exited: Promise<number | string>;
}

export function spawnEntry(args: string[], env: Record<string, string> = {}): Entry {
  // The shebang finds `node` on PATH: make it this node.
  const path = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`;
  const child = spawn(join(ROOT, 'bin', 'cdn-collector.js'), args, {
    cwd: ROOT,
    env: { ...process.env, PATH: path, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  return { child, output: () => out, exited };
}

/** Polls `probe` until it returns a value (not undefined) or `timeoutMs` passes; the timeout is a wait bound only. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  context = () => '',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}\n${context()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
