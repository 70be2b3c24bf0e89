/** A second signal within this long of the first is a copy of the same keypress, not a request to hurry. */
export const SAME_KEYPRESS_MS = 1000;
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Ctrl-C and SIGTERM end every command with exit 0, however it is started. Commands with a graceful stop (run, sim,
 * demo) listen with `process.once`. Started through npm (`npx`, `npm run`), the process gets Ctrl-C twice: from the
 * terminal, which signals the whole foreground process group, and from npm, which forwards it to its child. The copy
 * found no listener left, the signal killed the process, and npm exited 130. This listener stays installed:
 * - while a command's own listener is there, that command stops by itself;
 * - with none ever called, nothing needs finishing: exit 0 at once;
 * - while a command is stopping, a copy of the same keypress is ignored; a later signal stops at once (exit 130).
 */
export function exitCleanlyOnSignals(): void {
  let stoppingSince: number | undefined;
  for (const signal of SIGNALS) {
    process.on(signal, () => {
      const commandListens = process.listenerCount(signal) > 1;
      if (commandListens) {
        stoppingSince ??= Date.now();
        return;
      }
      if (stoppingSince === undefined) process.exit(0);
      if (Date.now() - stoppingSince > SAME_KEYPRESS_MS) process.exit(130);
    });
  }
}
