/** The collector CLI as a real child process (so kill -9 is a real kill, and exit codes are real). */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

const BIN = resolve(import.meta.dirname, '../../bin/cdn-collector.js');

export interface CliExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface ChildRun {
  child: ChildProcess;
  /** Resolves when the process exited, with its code or the signal that ended it, and everything it printed. */
  exited: Promise<CliExit>;
}

/**
 * `node bin/cdn-collector.js <args>` with an environment stripped of CDN_* and INFLUX_* (they would override the
 * config file). Output is kept whole: the security tests search all of it. With `killAfterMs`, a process still
 * running then (a daemon that should have refused to start) is killed and reports the signal; with
 * `fileSizeLimit`, it runs under a file size limit of a few KiB.
 */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  options: { killAfterMs?: number; fileSizeLimit?: boolean } = {},
): ChildRun {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CDN_|INFLUX_)/.test(k)));
  // A file size limit of a few KiB (`ulimit -f`, SIGXFSZ ignored): writes past it fail EFBIG, as they fail ENOSPC on
  // a full disk, without filling one.
  const [command, argv] = options.fileSizeLimit
    ? ['sh', ['-c', `trap '' XFSZ; ulimit -S -f 16; exec "$0" "$@"`, process.execPath, BIN, ...args]]
    : [process.execPath, [BIN, ...args]];
  const child = spawn(command, argv, {
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const kill =
    options.killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
  const exited = new Promise<CliExit>((res) =>
    child.once('close', (code, signal) => {
      clearTimeout(kill);
      res({ code, signal, stdout, stderr });
    }),
  );
  return { child, exited };
}

/** The arguments of `backfill` over [from, to) (epoch ms) with the config file `config`, then `extra`. */
export function backfillArgs(config: string, from: number, to: number, ...extra: string[]): string[] {
  const range = ['--from', new Date(from).toISOString(), '--to', new Date(to).toISOString()];
  return ['backfill', '--config', config, ...range, ...extra];
}

/** Resolves once `pattern` appears in what the child wrote to `stream` (rejects if it exits first). */
export function waitForOutput(run: ChildRun, stream: 'stdout' | 'stderr', pattern: RegExp): Promise<void> {
  return new Promise((res, rej) => {
    let seen = '';
    run.child[stream]!.on('data', (c: Buffer) => {
      seen += c.toString();
      if (pattern.test(seen)) res();
    });
    run.child.once('exit', () => rej(new Error(`exited before ${pattern}: ${seen}`)));
  });
}
