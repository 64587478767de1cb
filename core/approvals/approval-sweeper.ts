import type { Logger } from '../logger.ts';
import { claimToken } from '../work/instance-id.ts';
import { PollLoop } from '../work/poll-loop.ts';
import type { ApprovalService } from './approval-service.ts';

export interface ApprovalSweeperOptions {
  /** How often to look for overdue requests and unhandled resolutions (default 2 s): expiry is this precise. */
  intervalMs?: number;
  /** Rows claimed per round (default 50); a full round runs the next at once. */
  batch?: number;
}

/**
 * The approvals' background work on the durable-work kernel (worker role): expires
 * pending requests past `expires_at` with their `on_expiry` outcome, and calls the
 * handler again for resolutions that were never handled (the process died between the
 * resolution and the end of its handler, or the handler failed). Several processes may
 * run it: rows are claimed with a lease token each.
 */
export class ApprovalSweeper {
  readonly #service: ApprovalService;
  readonly #loop: PollLoop;
  readonly #batch: number;

  constructor(service: ApprovalService, logger: Logger, options: ApprovalSweeperOptions = {}) {
    this.#service = service;
    this.#batch = options.batch ?? 50;
    this.#loop = new PollLoop({
      round: () => this.#round(),
      intervalMs: options.intervalMs ?? 2000,
      onError: (err) => logger.error({ err: { message: err.message } }, 'approval sweeper error'),
    });
  }

  start(): void {
    this.#loop.start();
  }

  async stop(): Promise<void> {
    await this.#loop.stop();
  }

  wake(): void {
    this.#loop.wake();
  }

  /** One round now (tests drive it by hand with an injected clock); returns the rows it claimed. */
  async runOnce(): Promise<number> {
    return this.#service.sweep(claimToken('aps'), this.#batch);
  }

  async #round(): Promise<number | void> {
    const claimed = await this.runOnce();
    if (claimed >= this.#batch) return 0;
  }
}
