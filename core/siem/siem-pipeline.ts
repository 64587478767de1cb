import type { Db } from '../db/create-db.ts';
import type { EventBus } from '../events/event-bus.ts';
import { eventCursorRepository as cursors } from '../events/event-cursor-repository.ts';
import { eventRepository, type ReadFilter } from '../events/event-repository.ts';
import { GapClock } from '../events/gap-clock.ts';
import type { Logger } from '../logger.ts';
import type { PlatformEvent } from '../plugin-api/index.ts';
import { INSTANCE_ID } from '../work/instance-id.ts';
import { PollLoop } from '../work/poll-loop.ts';

export interface PipelineOptions<B> {
  /** The durable cursor's name (`siem:<id>`). */
  name: string;
  db: Db;
  bus: EventBus;
  logger: Logger;
  filter: ReadFilter;
  batchSize: number;
  pollIntervalMs: number;
  gapGraceMs: number;
  leaseMs: number;
  /** A batch is about to be prepared: open the connection now, so its handshake overlaps the rendering. */
  warm(): void;
  /** Renders and frames one batch (synchronous CPU work). */
  prepare(events: PlatformEvent[]): B;
  /** Writes one prepared batch; resolves once the connection accepted all of it. */
  send(batch: B): Promise<void>;
  /** After a batch was written and the cursor moved past it. */
  sent(count: number): Promise<void>;
  /** A write failed: the cursor stays before the batch, which is sent again whole on the next connection. */
  failed(err: unknown): Promise<void>;
  /** A round that wrote something has caught up with the outbox. */
  idle(): Promise<void>;
}

interface Prepared<B> {
  /** Where the cursor goes once the batch is written (past events other filters skipped, too). */
  lastSeenId: number;
  count: number;
  batch: B | null;
}

/**
 * An outbox consumer with two batches in flight: while batch n is being written to the
 * collector, batch n + 1 is read and rendered; the cursor moves past n (one guarded
 * UPDATE per batch) only once n's write was accepted. The forwarding guarantees are
 * core/events/event-consumer.ts's, which this mirrors with a different rhythm: a durable
 * cursor leased to one process (`claimById`, renewed as the round goes on), a failed write
 * leaves the cursor where it was (the prepared next batch is dropped and read again), and
 * a lost lease ends the round without moving the cursor.
 */
export class SiemPipeline<B> {
  readonly #o: PipelineOptions<B>;
  readonly #loop: PollLoop;
  readonly #gaps = new GapClock();
  #unsubscribe: (() => void) | null = null;

  constructor(options: PipelineOptions<B>) {
    this.#o = options;
    this.#loop = new PollLoop({
      round: () => this.#round(),
      intervalMs: options.pollIntervalMs,
      onError: (err) => options.logger.error({ consumer: options.name, err: err.message }, 'event consumer batch failed; will retry'),
    });
  }

  /** Starts from the stored cursor (created with the integration), or after the newest event when it is missing. */
  async start(): Promise<void> {
    const { db, name, bus } = this.#o;
    await cursors.ensure(db, name, await eventRepository.latestId(db), Date.now());
    this.#unsubscribe = bus.subscribe(() => this.#loop.wake());
    this.#loop.start();
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    await this.#loop.stop();
    await cursors.release(this.#o.db, this.#o.name, INSTANCE_ID);
  }

  async #read(after: number): Promise<Prepared<B>> {
    const { db, batchSize, gapGraceMs, filter } = this.#o;
    const { events, lastSeenId } = await eventRepository.readAfter(db, after, batchSize, gapGraceMs, filter, Date.now(), this.#gaps);
    if (!events.length) return { lastSeenId, count: 0, batch: null };
    this.#o.warm();
    return { lastSeenId, count: events.length, batch: this.#o.prepare(events) };
  }

  async #round(): Promise<void> {
    const { db, name, leaseMs } = this.#o;
    let leaseAt = Date.now();
    let position = await cursors.acquire(db, name, INSTANCE_ID, leaseAt, leaseMs);
    if (position === null) return;
    let wrote = false;
    let next = this.#read(position);
    for (;;) {
      const current = await next;
      if (current.lastSeenId === position) break;
      const writing = current.batch ? this.#o.send(current.batch) : Promise.resolve();
      // The next batch is read and rendered while this one is on its way.
      next = this.#read(current.lastSeenId);
      next.catch(() => {});
      try {
        await writing;
      } catch (err) {
        await this.#o.failed(err);
        throw err;
      }
      if (!(await cursors.advance(db, name, INSTANCE_ID, current.lastSeenId, Date.now()))) return; // another process took over
      position = current.lastSeenId;
      if (current.count) {
        wrote = true;
        await this.#o.sent(current.count);
      }
      if (Date.now() - leaseAt > leaseMs / 2) {
        leaseAt = Date.now();
        if ((await cursors.acquire(db, name, INSTANCE_ID, leaseAt, leaseMs)) === null) return;
      }
    }
    if (wrote) await this.#o.idle();
  }
}
