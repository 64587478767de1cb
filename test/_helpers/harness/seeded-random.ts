/**
 * Deterministic pseudo-random numbers in [0, 1) (mulberry32), so a seeded test or benchmark
 * replays the same sequence: the reliability suites print their seed, the finding counters'
 * test and the benchmarks' seeding use fixed ones.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
