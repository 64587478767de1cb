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

/**
 * The pipelined mode's hooks (the SIEM forwarder): while batch n is sent, batch n + 1 is
 * read and prepared, so reading and rendering overlap the write.
 */
export interface EventPipeline<B> {
  /** A batch is about to be prepared: e.g. open the connection now, so its handshake overlaps the preparing. */
  warm?(): void;
  /** Turns one batch into what `send` writes (synchronous CPU work: rendering, framing). */
  prepare(events: PlatformEvent[]): B;
  /** Sends one prepared batch; resolves once the receiver accepted all of it. Only then does the cursor move. */
  send(batch: B): Promise<void>;
  /** After a batch was sent and the cursor moved past it. */
  sent?(count: number): Promise<void>;
  /** A send failed: the cursor stays before the batch, the prepared next one is dropped, and the round ends. */
  failed?(err: unknown): Promise<void>;
  /** A round that sent something has caught up with the outbox. */
  idle?(): Promise<void>;
}

interface CommonOptions {
  /** Unique, stable name: the cursor is stored under it (e.g. `webhooks`, `siem:<id>`). */
  name: string;
  db: Db;
  bus: EventBus;
  logger: Logger;
  pollIntervalMs: number;
  gapGraceMs: number;
  leaseMs: number;
  batchSize?: number;
  filter?: ReadFilter;
  /** Where a consumer seen for the first time starts: at the oldest event or after the newest. */
  startAt?: 'beginning' | 'end';
}

export type EventConsumerOptions<B = unknown> = CommonOptions &
  (
    | {
        /** Handles one batch in id order. Throwing leaves the cursor where it was; the batch is retried. */
        handle(events: PlatformEvent[]): Promise<void>;
        pipeline?: undefined;
      }
    | {
        /** The pipelined mode: batch n + 1 is read and prepared while batch n is sent (EventPipeline). */
        pipeline: EventPipeline<B>;
        handle?: undefined;
      }
  );

/** One batch as read: where the cursor goes once it is sent, and what to send (null when the filter kept nothing). */
interface Read<B> {
  lastSeenId: number;
  count: number;
  batch: B | null;
}

/**
 * The one outbox reader. It reads from its own durable cursor; a lease on the cursor row
 * (`claimById`, renewed as a round goes on) means one process at a time runs a given
 * consumer; if that process dies, another takes over when the lease expires and carries
 * on from the stored cursor, so nothing is lost and nothing handled twice by a healthy
 * consumer. The cursor moves past a batch (one guarded UPDATE) only once the batch was
 * handled; a failure leaves it where it was, and a lost lease ends the round without
 * moving it. With `handle` batches are read one after the other; with `pipeline` the next
 * batch is read and prepared while the current one is sent, and dropped if that send fails.
 */
export class EventConsumer<B = unknown> {
  readonly #o: EventConsumerOptions<B>;
  readonly #hooks: EventPipeline<unknown>;
  readonly #loop: PollLoop;
  readonly #gaps = new GapClock();
  #unsubscribe: (() => void) | null = null;

  constructor(options: EventConsumerOptions<B>) {
    this.#o = options;
    // The serial mode is the pipeline without reading ahead, whose batch is the events themselves.
    this.#hooks = options.pipeline ?? { prepare: (events) => events, send: (events) => options.handle!(events as PlatformEvent[]) };
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
    this.#unsubscribe = null;
    await this.#loop.stop();
    await cursors.release(this.#o.db, this.#o.name, INSTANCE_ID);
  }

  /**
   * One round: processes everything available now; returns how many events were handled
   * (0 when another process holds the lease).
   */
  async drain(): Promise<number> {
    const { db, name, leaseMs } = this.#o;
    const ahead = this.#o.pipeline !== undefined;
    let leaseAt = Date.now();
    let position = await cursors.acquire(db, name, INSTANCE_ID, leaseAt, leaseMs);
    if (position === null) return 0;
    let handled = 0;
    let next = this.#read(position);
    for (;;) {
      const current = await next;
      if (current.lastSeenId === position) break;
      const sending = current.batch === null ? Promise.resolve() : this.#hooks.send(current.batch);
      if (ahead) {
        // The next batch is read and prepared while this one is on its way.
        next = this.#read(current.lastSeenId);
        next.catch(() => {});
      }
      try {
        await sending;
      } catch (err) {
        await this.#hooks.failed?.(err);
        throw err;
      }
      if (!(await cursors.advance(db, name, INSTANCE_ID, current.lastSeenId, Date.now()))) return handled; // another process took over
      position = current.lastSeenId;
      if (current.count) {
        handled += current.count;
        await this.#hooks.sent?.(current.count);
      }
      if (Date.now() - leaseAt > leaseMs / 2) {
        leaseAt = Date.now();
        if ((await cursors.acquire(db, name, INSTANCE_ID, leaseAt, leaseMs)) === null) return handled;
      }
      if (!ahead) next = this.#read(position);
    }
    if (handled) await this.#hooks.idle?.();
    return handled;
  }

  async #read(after: number): Promise<Read<unknown>> {
    const { db, batchSize = 200, gapGraceMs, filter } = this.#o;
    const { events, lastSeenId } = await eventRepository.readAfter(db, after, batchSize, gapGraceMs, filter, Date.now(), this.#gaps);
    if (!events.length) return { lastSeenId, count: 0, batch: null };
    this.#hooks.warm?.();
    return { lastSeenId, count: events.length, batch: this.#hooks.prepare(events) };
  }
}
