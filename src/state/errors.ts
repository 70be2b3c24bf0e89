import { CollectorError } from '../http/errors.js';

/** A checkpoint file exists but cannot be read back. Never reset silently: that would re-collect or skip history. */
export class CheckpointCorruptError extends CollectorError {
  override name = 'CheckpointCorruptError';
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`checkpoint file ${path} is corrupt (${problem}); fix or move it away to start that job from scratch`);
  }
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
