/**
 * One `abort` listener per signal, however many wait on it. A signal shared by many waiters (a backfill's cancel,
 * passed to every job and every call it queues; the collector's stop, to every write retried) would otherwise carry
 * one listener per waiter, and Node warns past ten (MaxListenersExceededWarning, printed in the middle of a JSON log).
 */
interface Waiters {
  callbacks: Set<() => void>;
  /** The signal's one listener. */
  fire: () => void;
}
const bySignal = new WeakMap<AbortSignal, Waiters>();

/**
 * Calls `onAbort` once when `signal` aborts; the returned function stops that (call it once the wait is over: a
 * signal that never aborts keeps nothing). Not called when the signal is aborted already: check that first.
 */
export function whenAborted(signal: AbortSignal, onAbort: () => void): () => void {
  let found = bySignal.get(signal);
  if (!found) {
    const callbacks = new Set<() => void>();
    const fire = () => {
      bySignal.delete(signal);
      for (const callback of [...callbacks]) callback();
      callbacks.clear();
    };
    found = { callbacks, fire };
    bySignal.set(signal, found);
    signal.addEventListener('abort', fire, { once: true });
  }
  const waiters = found;
  const callback = () => onAbort(); // one identity per wait, even for the same function
  waiters.callbacks.add(callback);
  return () => {
    if (!waiters.callbacks.delete(callback) || waiters.callbacks.size > 0 || bySignal.get(signal) !== waiters) return;
    // The one listener goes with the last waiter.
    bySignal.delete(signal);
    signal.removeEventListener('abort', waiters.fire);
  };
}
