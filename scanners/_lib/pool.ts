/**
 * Runs `fn` over `items` with at most `limit` in flight and, when `minIntervalMs` is
 * set, starts at most one item per interval (a rate bound for host discovery). Stops
 * starting new items once `signal` aborts.
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  opts: { signal?: AbortSignal; minIntervalMs?: number } = {},
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let lastStart = 0;
  const worker = async () => {
    while (next < items.length) {
      if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
      const i = next++;
      if (opts.minIntervalMs) {
        const wait = lastStart + opts.minIntervalMs - Date.now();
        lastStart = Math.max(Date.now(), lastStart + opts.minIntervalMs);
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
