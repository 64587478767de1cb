import type { Db } from '../db/create-db.ts';
import type { Logger } from '../logger.ts';
import type { PlatformEvent } from '../plugin-api/index.ts';
import { PollLoop } from '../work/poll-loop.ts';
import { errorMessage } from '../work/coerce-error.ts';
import type { EventBus } from '../events/event-bus.ts';
import { eventRepository } from '../events/event-repository.ts';
import { GapClock } from '../events/gap-clock.ts';

/** One live-stream listener: what it wants, and where matching events go. */
export interface StreamSubscriber {
  tenantId: string;
  /** Null means every kind. */
  kinds: ReadonlySet<string> | null;
  assetId: string | null;
  deliver(event: PlatformEvent): void;
  /** Called when the hub shuts down; the connection ends itself. */
  close(): void;
}

export interface StreamHubOptions {
  db: Db;
  bus: EventBus;
  logger: Logger;
  pollIntervalMs: number;
  gapGraceMs: number;
  batchSize?: number;
}

/**
 * The one reader of the events table for every open stream in this process. It keeps
 * an in-memory position (the live stream needs no durable cursor: replay after a
 * reconnect is by Last-Event-ID), wakes on the in-process bus and also polls, so
 * events written by other processes arrive within one poll interval. Each new batch
 * is fanned out to the matching subscribers, so N connections cost one query, not N.
 */
export class StreamHub {
  readonly #o: StreamHubOptions;
  readonly #subscribers = new Set<StreamSubscriber>();
  #position = 0;
  readonly #gaps = new GapClock();
  #started: Promise<void> | null = null;
  readonly #loop: PollLoop;
  #unsubscribe: (() => void) | null = null;

  constructor(options: StreamHubOptions) {
    this.#o = options;
    this.#loop = new PollLoop({
      round: () => this.#drain(),
      intervalMs: options.pollIntervalMs,
      onError: (err) => options.logger.error({ err: err.message }, 'event stream reader failed; will retry'),
    });
  }

  /** The id of the last event fanned out: a new subscriber receives everything after it. */
  get position(): number {
    return this.#position;
  }

  get size(): number {
    return this.#subscribers.size;
  }

  /** Idempotent; the stream route calls it too, so the hub also works when only injected requests are used. */
  start(): Promise<void> {
    this.#started ??= (async () => {
      this.#position = await eventRepository.latestId(this.#o.db);
      this.#unsubscribe = this.#o.bus.subscribe(() => this.#loop.wake());
      this.#loop.start();
    })();
    return this.#started;
  }

  /** Ends every open stream and the reader loop. */
  async stop(): Promise<void> {
    this.closeAll();
    if (!this.#started) return;
    await this.#started;
    this.#unsubscribe?.();
    await this.#loop.stop();
    this.#started = null;
  }

  closeAll(): void {
    for (const s of [...this.#subscribers]) {
      this.#subscribers.delete(s);
      s.close();
    }
  }

  /**
   * Registers synchronously and returns the position at that instant: every event
   * after it will be delivered live, so a replay must cover exactly (lastEventId, position].
   */
  subscribe(subscriber: StreamSubscriber): { position: number; unsubscribe: () => void } {
    this.#subscribers.add(subscriber);
    return { position: this.#position, unsubscribe: () => this.#subscribers.delete(subscriber) };
  }

  #fanOut(event: PlatformEvent): void {
    for (const s of this.#subscribers) {
      if (event.tenantId !== s.tenantId) continue;
      if (s.kinds && !s.kinds.has(event.kind)) continue;
      if (s.assetId !== null && event.assetId !== s.assetId) continue;
      try {
        s.deliver(event);
      } catch (err) {
        this.#o.logger.warn({ err: errorMessage(err) }, 'stream subscriber failed; closing it');
        this.#subscribers.delete(s);
        s.close();
      }
    }
  }

  async #drain(): Promise<void> {
    const { db, batchSize = 500, gapGraceMs } = this.#o;
    for (;;) {
      const { events, lastSeenId } = await eventRepository.readAfter(db, this.#position, batchSize, gapGraceMs, {}, Date.now(), this.#gaps);
      if (lastSeenId === this.#position) return;
      this.#position = lastSeenId;
      for (const event of events) this.#fanOut(event);
    }
  }
}
