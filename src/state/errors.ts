import { CollectorError } from '../http/errors.js';

/**
 * A checkpoint file exists but cannot be read back, or holds times no job writes. Never reset silently: that would
 * re-collect or skip history. One line: the CLI prints it as the whole error.
 */
export class CheckpointCorruptError extends CollectorError {
  override name = 'CheckpointCorruptError';
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
  override name = 'StateLockedError';
  constructor(
    readonly lockPath: string,
    readonly ownerPid: number | undefined,
  ) {
    super(
      `state directory is in use: ${lockPath} is held by ${ownerPid === undefined ? 'this process' : `live process ${ownerPid}`}; ` +
        'stop the other instance or point state.dir elsewhere',
    );
  }
}
