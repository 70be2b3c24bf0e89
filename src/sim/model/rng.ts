/** Deterministic pseudo-randomness: every simulated value is a pure function of the seed and its coordinates. */

/**
 * FNV-1a over the parts joined by U+0001, finished with a murmur3 mix for good avalanche. The parts are hashed in turn
 * rather than joined into one string first: the same value, without a string per call (every simulated number is one).
 */
export function hash32(...parts: ReadonlyArray<string | number>): number {
  let h = 0x811c9dc5;
  for (let p = 0; p < parts.length; p++) {
    if (p > 0) h = Math.imul(h ^ 1, 0x01000193);
    const part = parts[p]!;
    const s = typeof part === 'string' ? part : String(part);
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Uniform in [0, 1). */
export function unit(...parts: ReadonlyArray<string | number>): number {
  return hash32(...parts) / 0x1_0000_0000;
}

/** A seeded sequence (mulberry32) for things drawn in order, such as injected faults. */
export function sequence(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  };
}

/**
 * Splits a non-negative integer into integer parts proportional to `weights` that add up exactly to `total`
 * (largest remainder). Grouped results of the simulator are built with it, so groups always sum to the totals.
 */
export function splitInteger(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (weights.length === 0) return [];
  if (sum <= 0 || total <= 0) return weights.map(() => 0);
  const exact = weights.map((w) => (total * w) / sum);
  const parts = exact.map(Math.floor);
  let rest = total - parts.reduce((a, b) => a + b, 0);
  if (rest === 0) return parts;
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let k = 0; rest > 0; k = (k + 1) % order.length, rest--) parts[order[k]![1]]! += 1;
  return parts;
}
