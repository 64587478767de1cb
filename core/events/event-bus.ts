import { EventEmitter } from 'node:events';

/** What this process just committed: the kind and data of each event (for in-process counters only). */
export interface CommittedEvent {
  kind: string;
  data?: unknown;
}

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
  wake(committed: readonly CommittedEvent[] = []): void {
    this.#emitter.emit('appended');
    if (committed.length > 0) this.#emitter.emit('committed', committed);
  }

  /**
   * Hears the events this process commits, for process-local counters (core/metrics/).
   * Not a consumer: events committed by other processes are not heard, and nothing here
   * is durable. Returns the function that unsubscribes.
   */
  onCommitted(listener: (events: readonly CommittedEvent[]) => void): () => void {
    this.#emitter.on('committed', listener);
    return () => this.#emitter.off('committed', listener);
  }

  /** Returns the function that unsubscribes. */
  subscribe(listener: () => void): () => void {
    this.#emitter.on('appended', listener);
    return () => this.#emitter.off('appended', listener);
  }
}
