/**
 * Polls `probe` until it returns a value other than undefined/false, or fails after
 * `timeoutMs` with the last value seen. For background work (deliveries, consumers)
 * whose completion a test can only observe.
 */
export async function eventually<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 30_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    last = value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms (last: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
