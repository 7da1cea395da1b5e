import { sha256 } from "../core/mod.ts";

/** A seeded pseudo-random source: the same key always yields the same sequence. */
export interface SeededRandom {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform in [min, max). */
  range(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
}

/**
 * sfc32 seeded from SHA-256 of `key`: fast, 128 bits of state, and independent of the
 * platform's `Math.random`, so an asset is reproducible from its prompt and seed.
 */
export function seededRandom(key: string): SeededRandom {
  const digest = new DataView(sha256(key).buffer);
  let a = digest.getUint32(0, true);
  let b = digest.getUint32(4, true);
  let c = digest.getUint32(8, true);
  let d = digest.getUint32(12, true);
  const next = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  // Warm up so that similar keys diverge before the first value is used.
  for (let index = 0; index < 12; index++) next();
  return {
    next,
    range: (min, max) => min + (max - min) * next(),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
  };
}
