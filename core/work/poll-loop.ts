import { toError } from './coerce-error.ts';
import { watchLoop, type LoopHealth } from './loop-monitor.ts';

export interface PollLoopOptions {
  /**
   * One round of work. It may return how long to sleep before the next round (ms; 0 runs
   * the next round at once); otherwise the loop sleeps `intervalMs`.
   */
  round(): Promise<number | void>;
  intervalMs: number;
  /** A round that throws is logged here and retried after the interval: a worker never dies of one bad round. */
  onError(err: Error): void;
  /** The clock its health is judged on (epoch ms); tests inject one. Default Date.now. */
  clock?: () => number;
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
  #roundStartedAt: number | null = null;
  #lastTickAt: number | null = null;
  #nextRoundAt: number | null = null;
  #unwatch: (() => void) | null = null;

  constructor(options: PollLoopOptions) {
    this.#o = options;
  }

  get running(): boolean {
    return this.#running;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#unwatch = watchLoop(this);
    this.#loop = this.#run();
  }

  /** Stops after the current round; resolves when it has ended. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#unwatch?.();
    this.#unwatch = null;
    this.wake();
    await this.#loop;
  }

  /** For readiness (core/work/loop-monitor.ts): is a round stuck, or the next one late? */
  health(): LoopHealth {
    const now = (this.#o.clock ?? Date.now)();
    const lagMs = this.#roundStartedAt !== null ? now - this.#roundStartedAt : this.#nextRoundAt !== null ? now - this.#nextRoundAt : 0;
    return { running: this.#running, roundStartedAt: this.#roundStartedAt, lastTickAt: this.#lastTickAt, lagMs: Math.max(0, lagMs) };
  }

  #tick(inRound: boolean): void {
    const now = (this.#o.clock ?? Date.now)();
    this.#lastTickAt = now;
    this.#roundStartedAt = inRound ? now : null;
  }

  wake(): void {
    this.#woken = true;
    this.#wake?.();
  }

  async #run(): Promise<void> {
    while (this.#running) {
      this.#woken = false;
      let sleep: number = this.#o.intervalMs;
      this.#tick(true);
      try {
        const asked = await this.#o.round();
        if (typeof asked === 'number') sleep = Math.max(0, asked);
      } catch (err) {
        this.#o.onError(toError(err));
      }
      this.#tick(false);
      this.#nextRoundAt = this.#lastTickAt! + (this.#woken ? 0 : sleep);
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
