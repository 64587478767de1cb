import type { Db } from '../db/create-db.ts';
import type { PlatformEvent } from '../plugin-api/index.ts';
import { eventReplayRepository, type ReplayQuery } from './event-replay-repository.ts';

/**
 * The stored side of the live stream: what a reconnecting client (Last-Event-ID) missed.
 * The live side is the process's StreamHub.
 */
export class StreamService {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** The tenant's matching events in (afterId, upToId], in id order; the newest `limit` when more match. */
  replay(query: ReplayQuery): Promise<PlatformEvent[]> {
    return eventReplayRepository.range(this.#db, query);
  }
}
