/** Deterministic randomness: a seeded stream for generation and a stateless hash for per-index values. */

export type Rng = () => number;

/** mulberry32: tiny, fast, and identical on every platform. */
export function makeRng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes integers into one 32-bit value (so names and attributes need no storage). */
export function hash32(...parts: readonly number[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) {
    h = Math.imul(h ^ (p >>> 0), 0x01000193) >>> 0;
    h ^= h >>> 13;
    h = Math.imul(h, 0x5bd1e995) >>> 0;
    h ^= h >>> 15;
  }
  return h >>> 0;
}

/** A 32-bit hash of a text under a seed (ids, keys). */
export function hashText(seed: number, text: string): number {
  let h = hash32(seed);
  for (let i = 0; i < text.length; i++) h = hash32(h, text.charCodeAt(i));
  return h;
}

/** A hash as a uniform draw in [0, 1). */
export const unit = (h: number): number => h / 4294967296;

/** A standard normal draw (Box-Muller). */
export function gaussian(rng: Rng): number {
  const u = 1 - rng();
  const v = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export function pick<T>(items: readonly T[], n: number): T {
  const item = items[Math.abs(n) % items.length];
  if (item === undefined) throw new RangeError('pick from an empty list');
  return item;
}
