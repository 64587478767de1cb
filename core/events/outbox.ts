import type { Db, Transaction } from '../db/create-db.ts';
import type { EventBus } from './event-bus.ts';
import { eventRepository, type NewEvent } from './event-repository.ts';

/** A unit of work: the transaction plus `emit`, which appends to the outbox inside it. */
export interface UnitOfWork {
  trx: Transaction;
  /** Appends an event in this transaction; it exists for consumers only if the transaction commits. */
  emit(event: NewEvent): Promise<number>;
  /** Appends several events in this transaction with multi-row inserts. */
  emitMany(events: NewEvent[]): Promise<void>;
}

/**
 * Every state change and its events are written in one transaction, so an event
 * exists if and only if its change does. After commit the bus wakes local consumers.
 */
export class Outbox {
  readonly #db: Db;
  readonly #bus: EventBus;

  constructor(db: Db, bus: EventBus) {
    this.#db = db;
    this.#bus = bus;
  }

  async transaction<T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    let emitted = 0;
    const result = await this.#db.transaction(async (trx) =>
      work({
        trx,
        emit: async (event) => {
          emitted += 1;
          return eventRepository.append(trx, event, Date.now());
        },
        emitMany: async (events) => {
          emitted += events.length;
          await eventRepository.appendMany(trx, events, Date.now());
        },
      }),
    );
    if (emitted > 0) this.#bus.wake();
    return result;
  }
}
