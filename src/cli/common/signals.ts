import { intervalClock, type Clock } from '../../clock.js';

/** A second signal within this long of the first is a copy of the same keypress, not a request to hurry. */
export const SAME_KEYPRESS_MS = 1000;

/** The signals that ask a command to stop: Ctrl-C, `kill`/systemd/Kubernetes, a closed terminal. */
export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';
const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const SIGNAL_NUMBER: Record<StopSignal, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/** The exit code of a command a signal stopped before its work was done: 128 + the signal's number, as shells say. */
export function stoppedExitCode(signal: StopSignal): number {
  return 128 + SIGNAL_NUMBER[signal];
}

export interface GracefulStop {
  /** Runs once, at the first stop signal: the command stops what it started, keeps what it did, and ends. */
  stop: (signal: StopSignal) => void;
  /** A hangup that does not stop the command (the daemon: it reads its configuration only at start). */
  hangup?: () => void;
  /** Says what is left undone when a later signal quits at once, before the exit. */
  quit?: (signal: StopSignal) => void;
}

let current: GracefulStop | undefined;

/**
 * The command's graceful stop while it runs; the returned function removes it. One at a time: the stop of whatever
 * the process is doing. Without one (a command with nothing to finish), a stop signal exits at once.
 */
export function onStopSignal(stop: GracefulStop): () => void {
  current = stop;
  return () => {
    if (current === stop) current = undefined;
  };
}

/**
 * Installed by main before any command runs, and never removed: every stop signal and a closed stdout end a command
 * the same way, however it was started.
 * - A command's graceful stop (onStopSignal) is called once, at the first signal. Started through npm (`npx`, `npm
 *   run`), one Ctrl-C arrives twice: from the terminal, which signals the whole foreground process group, and from npm,
 *   which forwards it. That copy is ignored; a signal later than SAME_KEYPRESS_MS quits at once (128 + its number).
 * - With no graceful stop registered, a signal exits at once with 128 + its number: nothing needs finishing.
 * State locks held by the process are released on any exit (state/lock.ts).
 * `clock` times the copy of a keypress (an interval: the system clock is read monotonically).
 */
export function handleStopSignals(clock: Clock): void {
  const interval = intervalClock(clock);
  let stoppingSince: number | undefined;
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      if (signal === 'SIGHUP' && current?.hangup) return current.hangup();
      if (!current) process.exit(stoppedExitCode(signal));
      if (stoppingSince === undefined) {
        stoppingSince = interval.now();
        return current.stop(signal);
      }
      if (interval.now() - stoppingSince <= SAME_KEYPRESS_MS) return;
      current.quit?.(signal);
      process.exit(stoppedExitCode(signal));
    });
  }
}

/**
 * A closed stdout (`… | head -1`: EPIPE, or any other error of the stream) ends the command quietly, exit 0: whoever
 * read the output has all they wanted, and a stack trace would only say the pipe closed.
 */
export function endQuietlyWhenUnread(stdout: NodeJS.WriteStream): void {
  stdout.on('error', () => process.exit(0));
}
