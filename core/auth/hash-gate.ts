import { RampartError } from '../errors.ts';

/** 503 when every password-hash slot is busy and the wait queue is full. */
export class ServerBusyError extends RampartError {
  constructor(retryAfterSeconds: number) {
    super(503, 'server_busy', `The server is busy verifying passwords; retry in ${retryAfterSeconds} s.`, { retry_after: retryAfterSeconds });
  }
}

export interface HashGateLimits {
  /** Hashes running at once (each scrypt hash holds 128 × N × r bytes while it runs). */
  maxConcurrent: number;
  /** Callers that may wait for a slot; beyond them the gate refuses at once. */
  maxQueued: number;
  /** retry_after of the refusal. */
  retryAfterSeconds?: number;
}

/**
 * A counting semaphore with a bounded FIFO queue for password hashing. Login is open to
 * anyone, and every attempt (an unknown email too) pays a full hash: without a bound,
 * parallel logins turn into unbounded memory and CPU. Refusing beyond the queue, rather
 * than waiting, keeps the worst case at `maxConcurrent` hashes and `maxQueued` parked
 * closures.
 */
export class HashGate {
  readonly #limits: Required<HashGateLimits>;
  readonly #waiting: Array<() => void> = [];
  #active = 0;

  constructor(limits: HashGateLimits) {
    this.#limits = { retryAfterSeconds: 1, ...limits };
  }

  get active(): number {
    return this.#active;
  }

  get queued(): number {
    return this.#waiting.length;
  }

  /** Runs `work` in a slot, after waiting in the queue if need be; ServerBusyError when both are full. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#active >= this.#limits.maxConcurrent) {
      if (this.#waiting.length >= this.#limits.maxQueued) throw new ServerBusyError(this.#limits.retryAfterSeconds);
      // The slot is handed over by the finishing caller, so #active never dips and a newcomer cannot jump the queue.
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#active++;
    }
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active--;
    }
  }
}
