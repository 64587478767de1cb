/**
 * In-process wake-ups for long polls: a job dispatched in this process wakes its waiting
 * claims at once; jobs dispatched by other processes are found by the poll interval.
 * `close()` ends every wait (server shutdown must not sit out 30-second long polls).
 */
export class AgentWakeups {
  readonly #waiters = new Set<() => void>();
  #closed = false;

  get closed(): boolean {
    return this.#closed;
  }

  wake(): void {
    for (const w of [...this.#waiters]) w();
  }

  close(): void {
    this.#closed = true;
    this.wake();
  }

  /** Resolves after `ms`, on a wake, on `signal`'s abort or on close, whichever comes first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.#closed || signal?.aborted || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

/** A plain pause, cut short by `signal` (for waits that must not end early on shutdown of long polls). */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
