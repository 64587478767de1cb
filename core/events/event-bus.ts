import { EventEmitter } from 'node:events';

/**
 * Wakes in-process consumers when the outbox has grown, so they need not wait for
 * their next poll. It carries no data: the events table is the only source of truth,
 * which is what lets consumers in other processes (who only poll) see the same events.
 */
export class EventBus {
  readonly #emitter = new EventEmitter();

  constructor() {
    this.#emitter.setMaxListeners(0);
  }

  /** Called after a transaction that appended events has committed. */
  wake(): void {
    this.#emitter.emit('appended');
  }

  /** Returns the function that unsubscribes. */
  subscribe(listener: () => void): () => void {
    this.#emitter.on('appended', listener);
    return () => this.#emitter.off('appended', listener);
  }
}
