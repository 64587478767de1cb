import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/create-db.ts';
import type { Logger } from '../logger.ts';
import type { PlatformEvent } from '../plugin-api/index.ts';
import { PollLoop } from '../work/poll-loop.ts';
import type { EventBus } from './event-bus.ts';
import { eventRepository, type ReadFilter } from './event-repository.ts';

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

/** Identifies this process in lease columns. */
export const INSTANCE_ID = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

/**
 * Reads the outbox from its own durable cursor. A lease on the cursor row means one
 * process at a time runs a given consumer; if that process dies, another takes over
 * when the lease expires and carries on from the stored cursor, so nothing is lost
 * and nothing handled twice by a healthy consumer.
 */
export class EventConsumer {
  readonly #o: EventConsumerOptions;
  readonly #loop: PollLoop;
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
    await db('event_cursors')
      .insert({ consumer: name, last_event_id: first, locked_by: null, locked_until: 0, updated_at: Date.now() })
      .onConflict('consumer')
      .ignore();
    this.#unsubscribe = this.#o.bus.subscribe(() => this.#loop.wake());
    this.#loop.start();
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.();
    await this.#loop.stop();
    await this.#o.db('event_cursors').where({ consumer: this.#o.name, locked_by: INSTANCE_ID }).update({ locked_by: null, locked_until: 0 });
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

  async #claim(): Promise<number | null> {
    const { db, name, leaseMs } = this.#o;
    const now = Date.now();
    const claimed = await db('event_cursors')
      .where({ consumer: name })
      .andWhere((q) => q.where({ locked_by: INSTANCE_ID }).orWhere('locked_until', '<', now))
      .update({ locked_by: INSTANCE_ID, locked_until: now + leaseMs });
    if (!claimed) return null;
    const row = (await db('event_cursors').where({ consumer: name }).first('last_event_id')) as { last_event_id: number | string };
    return Number(row.last_event_id);
  }

  /** One batch: null when there was nothing to do (or another process holds the lease). */
  async #step(): Promise<number | null> {
    const cursor = await this.#claim();
    if (cursor === null) return null;
    const { db, name, batchSize = 200, gapGraceMs, filter } = this.#o;
    const { events, lastSeenId } = await eventRepository.readAfter(db, cursor, batchSize, gapGraceMs, filter);
    if (lastSeenId === cursor) return null;
    if (events.length) await this.#o.handle(events);
    await db('event_cursors').where({ consumer: name, locked_by: INSTANCE_ID }).update({ last_event_id: lastSeenId, updated_at: Date.now() });
    return events.length;
  }
}
