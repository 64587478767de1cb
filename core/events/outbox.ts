import type { Db, Transaction } from '../db/create-db.ts';
import type { CommittedEvent, EventBus } from './event-bus.ts';
import { eventRepository } from './event-repository.ts';
import type { StoredEventKind } from '../domain/event-kinds.ts';
import type { NewEventOf, PayloadMap } from '../domain/event-payloads.ts';

/**
 * A unit of work: the transaction plus `emit`, which appends to the outbox inside it.
 * `P` types each kind's data: services take `UnitOfWork<EventPayloads>` (core/domain/event-payloads.ts).
 */
export interface UnitOfWork<P extends PayloadMap = PayloadMap> {
  trx: Transaction;
  /** Appends an event in this transaction; it exists for consumers only if the transaction commits. */
  emit<K extends StoredEventKind>(event: NewEventOf<P, K>): Promise<number>;
  /** Appends several events in this transaction with multi-row inserts. */
  emitMany<K extends StoredEventKind>(events: NewEventOf<P, K>[]): Promise<void>;
}

/**
 * Every state change and its events are written in one transaction, so an event
 * exists if and only if its change does. After commit the bus wakes local consumers.
 */
export class Outbox<P extends PayloadMap = PayloadMap> {
  readonly #db: Db;
  readonly #bus: EventBus;

  constructor(db: Db, bus: EventBus) {
    this.#db = db;
    this.#bus = bus;
  }

  async transaction<T>(work: (uow: UnitOfWork<P>) => Promise<T>): Promise<T> {
    const emitted: CommittedEvent[] = [];
    const result = await this.#db.transaction(async (trx) =>
      work({
        trx,
        emit: async (event) => {
          emitted.push(event);
          return eventRepository.append(trx, event, Date.now());
        },
        emitMany: async (events) => {
          emitted.push(...events);
          await eventRepository.appendMany(trx, events, Date.now());
        },
      }),
    );
    if (emitted.length > 0) this.#bus.wake(emitted);
    return result;
  }
}
