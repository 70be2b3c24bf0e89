/**
 * Whether text written to `stream` may carry ANSI colours: only on a terminal, never with NO_COLOR set
 * (https://no-color.org), always with FORCE_COLOR set to anything but 0. Pipes and files get plain text.
 */
export function useColour(stream: { isTTY?: boolean }, env: Record<string, string | undefined> = process.env): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}
