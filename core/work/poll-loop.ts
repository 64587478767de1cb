import { toError } from './coerce-error.ts';

export interface PollLoopOptions {
  /**
   * One round of work. It may return how long to sleep before the next round (ms; 0 runs
   * the next round at once); otherwise the loop sleeps `intervalMs`.
   */
  round(): Promise<number | void>;
  intervalMs: number;
  /** A round that throws is logged here and retried after the interval: a worker never dies of one bad round. */
  onError(err: Error): void;
}

/**
 * The background loop every worker runs (outbox consumers, the stream hub's reader,
 * scans, scan callbacks, webhook deliveries, exports, retention): a round, then sleep until the
 * interval passes or `wake()` is called.
 * A wake-up that arrives during a round is remembered, so work created while a round
 * runs never waits a whole interval.
 */
export class PollLoop {
  readonly #o: PollLoopOptions;
  #running = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  #woken = false;

  constructor(options: PollLoopOptions) {
    this.#o = options;
  }

  get running(): boolean {
    return this.#running;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Stops after the current round; resolves when it has ended. */
  async stop(): Promise<void> {
    this.#running = false;
    this.wake();
    await this.#loop;
  }

  wake(): void {
    this.#woken = true;
    this.#wake?.();
  }

  async #run(): Promise<void> {
    while (this.#running) {
      this.#woken = false;
      let sleep: number = this.#o.intervalMs;
      try {
        const asked = await this.#o.round();
        if (typeof asked === 'number') sleep = Math.max(0, asked);
      } catch (err) {
        this.#o.onError(toError(err));
      }
      if (!this.#running) break;
      if (sleep === 0 || this.#woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, sleep);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = null;
    }
  }
}
