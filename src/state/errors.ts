import { CollectorError } from '../errors.js';

/**
 * A checkpoint file exists but cannot be read back, or holds times no job writes. Never reset silently: that would
 * re-collect or skip history. One line: the CLI prints it as the whole error.
 */
export class CheckpointCorruptError extends CollectorError {
  override readonly code = 'CDN_ERR_STATE_CORRUPT';
  constructor(
    readonly path: string,
    readonly problem: string,
    /** Where a copy of the damaged file was kept, if one could be written. */
    readonly copyPath?: string,
  ) {
    super(
      `checkpoint file ${path} is corrupt (${oneLine(problem)})` +
        (copyPath ? `; a copy is kept as ${copyPath}` : '') +
        '. To repair: move it away to start that job from its initial lookback (backfill older history with ' +
        '`cdn-collector backfill`), or fix the named value in it',
    );
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}

/** Another live process holds the state directory. */
export class StateLockedError extends CollectorError {
  override readonly code = 'CDN_ERR_STATE_LOCKED';
  constructor(
    readonly lockPath: string,
    readonly ownerPid: number | undefined,
  ) {
    super(
      `state directory is in use: ${lockPath} is held by ` +
        `${ownerPid === undefined ? 'this process' : `live process ${ownerPid}`}; ` +
        'stop the other instance or point state.dir elsewhere',
    );
  }
}

/** What each file-system error a state directory commonly meets means, for a one-line message. */
const IO_PROBLEMS: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a parent of the path is not a directory',
  EISDIR: 'the path is a directory',
  EIO: 'input/output error',
};

/**
 * The state directory (its lock file, checkpoints or quota journal) cannot be read or written: a full disk, a
 * read-only mount, wrong permissions. One line naming the path, instead of a stack trace.
 */
export class StateIoError extends CollectorError {
  override readonly code = 'CDN_ERR_STATE_IO';
  constructor(
    readonly path: string,
    /** The file-system error (`ENOSPC`, `EROFS`, …). */
    readonly causeCode: string,
    options?: { cause?: unknown },
  ) {
    super(
      `state directory: cannot use ${path}: ${IO_PROBLEMS[causeCode] ?? 'file system error'} (${causeCode})`,
      options,
    );
  }
}

/** `err` as a StateIoError when it is one of the file-system errors of IO_PROBLEMS; otherwise undefined. */
export function asStateIoError(err: unknown, fallbackPath: string): StateIoError | undefined {
  if (err instanceof StateIoError) return err;
  const e = err as NodeJS.ErrnoException | undefined;
  if (typeof e?.code !== 'string' || !(e.code in IO_PROBLEMS)) return undefined;
  return new StateIoError(typeof e.path === 'string' ? e.path : fallbackPath, e.code, { cause: err });
}

/** A short, secret-free description of a file-system failure, for logs and /healthz. */
export function ioProblem(err: unknown): string {
  const code = err instanceof StateIoError ? err.causeCode : (err as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return `${IO_PROBLEMS[code] ?? 'file system error'} (${code})`;
  return err instanceof Error ? err.message : String(err);
}
