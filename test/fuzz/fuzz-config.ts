/**
 * Shared knobs of the fuzz suite: a fixed seed per run (printed on failure so a run can be
 * replayed), and the long mode that `npm run fuzz` turns on with KGW_FUZZ=long.
 */
export const longMode = process.env.KGW_FUZZ === 'long';
export const seed = Number(process.env.KGW_FUZZ_SEED ?? (longMode ? Date.now() % 1_000_000 : 1234));

/** Scales an iteration count: the default keeps `npm test` fast, the long mode digs deeper. */
export function iterations(normal: number, long = normal * 50): number {
  return longMode ? long : normal;
}

/** A small deterministic PRNG (mulberry32), so failures reproduce from the seed alone. */
export function rng(s: number): () => number {
  let a = s >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
