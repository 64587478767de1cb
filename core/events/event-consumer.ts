import type { Db } from '../db/create-db.ts';
import type { Logger } from '../logger.ts';
import type { PlatformEvent } from '../plugin-api/index.ts';
import { PollLoop } from '../work/poll-loop.ts';
import { INSTANCE_ID } from '../work/instance-id.ts';
import type { EventBus } from './event-bus.ts';
import { eventRepository, type ReadFilter } from './event-repository.ts';
import { GapClock } from './gap-clock.ts';
import { eventCursorRepository as cursors } from './event-cursor-repository.ts';

export { INSTANCE_ID };

export interface EventConsumerOptions {
  /** Unique, stable name: the cursor is stored under it (e.g. `webhooks`, `siem:<id>`). */
  name: string;
  db: Db;
  bus: EventBus;
  logger: Logger;
  /** Handles one batch in id order. Throwing leaves the cursor where it was; the batch is retried. */
  handle(events: PlatformEvent[]): Promise<void>;
  pollIntervalMs: number;
  gapGraceMs: number;
  leaseMs: number;
  batchSize?: number;
  filter?: ReadFilter;
  /** Where a consumer seen for the first time starts: at the oldest event or after the newest. */
  startAt?: 'beginning' | 'end';
}

/**
 * Reads the outbox from its own durable cursor. A lease on the cursor row means one
 * process at a time runs a given consumer; if that process dies, another takes over
 * when the lease expires and carries on from the stored cursor, so nothing is lost
 * and nothing handled twice by a healthy consumer.
 */
export class EventConsumer {
  readonly #o: EventConsumerOptions;
  readonly #loop: PollLoop;
  readonly #gaps = new GapClock();
  #unsubscribe: (() => void) | null = null;

  constructor(options: EventConsumerOptions) {
    this.#o = options;
    this.#loop = new PollLoop({
      round: async () => void (await this.drain()),
      intervalMs: options.pollIntervalMs,
      onError: (err) => options.logger.error({ consumer: options.name, err: err.message }, 'event consumer batch failed; will retry'),
    });
  }

  async start(): Promise<void> {
    const { db, name } = this.#o;
    const first = this.#o.startAt === 'end' ? await eventRepository.latestId(db) : 0;
    await cursors.ensure(db, name, first, Date.now());
    this.#unsubscribe = this.#o.bus.subscribe(() => this.#loop.wake());
    this.#loop.start();
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.();
    await this.#loop.stop();
    await cursors.release(this.#o.db, this.#o.name, INSTANCE_ID);
  }

  /** Processes everything available now; returns how many events were handled. */
  async drain(): Promise<number> {
    let handled = 0;
    for (;;) {
      const batch = await this.#step();
      if (batch === null) return handled;
      handled += batch;
    }
  }

  #claim(): Promise<number | null> {
    const { db, name, leaseMs } = this.#o;
    return cursors.acquire(db, name, INSTANCE_ID, Date.now(), leaseMs);
  }

  /** One batch: null when there was nothing to do (or another process holds the lease). */
  async #step(): Promise<number | null> {
    const cursor = await this.#claim();
    if (cursor === null) return null;
    const { db, name, batchSize = 200, gapGraceMs, filter } = this.#o;
    const { events, lastSeenId } = await eventRepository.readAfter(db, cursor, batchSize, gapGraceMs, filter, Date.now(), this.#gaps);
    if (lastSeenId === cursor) return null;
    if (events.length) await this.#o.handle(events);
    await cursors.advance(db, name, INSTANCE_ID, lastSeenId, Date.now());
    return events.length;
  }
}
