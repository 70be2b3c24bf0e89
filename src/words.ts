/** `1 window`, `2 windows`, `0 windows`: a count and its noun, in the plural unless it is one. */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
