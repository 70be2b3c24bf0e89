import { onStopSignal, type StopSignal } from '../common/signals.js';

/** The stop of a running backfill, as the stop signals drive it (onInterrupt). */
export interface BackfillStop {
  requested: () => boolean;
  /** The signal that stopped the backfill. */
  signal: () => StopSignal | undefined;
  /** Runs at the stop (once set): the standalone backfill drops the calls still waiting for quota. */
  onStop: (run: () => void) => void;
  /** What a second signal, which quits at once, leaves undone (said before the exit). */
  leftOnQuit: (text: string) => void;
  dispose: () => void;
  resume: string;
}

/**
 * The first stop signal (Ctrl-C, SIGTERM, a closed terminal) stops after the spans under way (they are confirmed) and
 * says how to resume; a second one a moment later quits at once (signals.ts).
 */
export function onInterrupt(resume: string): BackfillStop {
  let stoppedBy: StopSignal | undefined;
  let atStop = () => {};
  let left = 'the spans under way are abandoned (not confirmed: a rerun collects them)';
  const dispose = onStopSignal({
    stop: (signal) => {
      stoppedBy = signal;
      const now = `(${signal}; Ctrl-C again to quit now)`;
      process.stderr.write(`\nstopping after the spans under way ${now}. Resume with:\n  ${resume}\n`);
      atStop();
    },
    quit: (signal) => process.stderr.write(`quitting now (${signal}): ${left}. Resume with:\n  ${resume}\n`),
  });
  return {
    requested: () => stoppedBy !== undefined,
    signal: () => stoppedBy,
    onStop: (run) => (atStop = run),
    leftOnQuit: (text) => (left = text),
    dispose,
    resume,
  };
}
