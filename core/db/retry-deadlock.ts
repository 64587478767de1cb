/** True for a transaction the engine rolled back to break a lock cycle (MariaDB/MySQL) or a busy SQLite. */
export function isRetryableTxError(err: unknown): boolean {
  const e = err as { code?: string; errno?: number } | null;
  return e?.errno === 1213 || e?.code === 'ER_LOCK_DEADLOCK' || e?.errno === 1205 || e?.code === 'SQLITE_BUSY';
}

/**
 * Runs a whole transaction again when the database aborted it as a deadlock victim.
 * Concurrent scan workers write the same change-clock and check-stats rows, so the
 * occasional lock cycle on MariaDB is expected; the retry is the documented remedy.
 */
export async function retryOnDeadlock<T>(work: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await work();
    } catch (err) {
      if (i >= attempts || !isRetryableTxError(err)) throw err;
      await new Promise((r) => setTimeout(r, 10 * i + Math.random() * 40));
    }
  }
}
