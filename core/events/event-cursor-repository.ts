import type { Queryable } from '../db/create-db.ts';
import { LeaseQueue } from '../work/lease-queue.ts';

/**
 * One row per durable consumer: its position in the events table and a lease, so one
 * process at a time runs a given consumer. The row is claimed by name (claimById), and
 * the holder may claim it again to extend its lease.
 */
const cursorLease = new LeaseQueue({ table: 'event_cursors', idColumn: 'consumer', ready: {}, order: [{ column: 'consumer' }] });

export const eventCursorRepository = {
  /** Creates the cursor at `first` unless it exists. */
  async ensure(db: Queryable, consumer: string, first: number, now: number): Promise<void> {
    await db('event_cursors').insert({ consumer, last_event_id: first, locked_by: null, locked_until: 0, updated_at: now }).onConflict('consumer').ignore();
  },

  /** Removes a consumer's cursor (its integration was deleted). */
  async remove(db: Queryable, consumer: string): Promise<void> {
    await db('event_cursors').where({ consumer }).delete();
  },

  /** Leases the cursor to `holder` (free, expired, or already its own); returns its position, or null when another process holds it. */
  async acquire(db: Queryable, consumer: string, holder: string, now: number, leaseMs: number): Promise<number | null> {
    if (!(await cursorLease.claimById(db, consumer, { token: holder, now, leaseMs }))) return null;
    const row = (await db('event_cursors').where({ consumer }).first('last_event_id')) as { last_event_id: number | string };
    return Number(row.last_event_id);
  },

  /** Moves the cursor, if `holder` still holds it. */
  async advance(db: Queryable, consumer: string, holder: string, lastEventId: number, now: number): Promise<boolean> {
    return cursorLease.update(db, consumer, holder, { last_event_id: lastEventId, updated_at: now });
  },

  async release(db: Queryable, consumer: string, holder: string): Promise<void> {
    await cursorLease.release(db, consumer, holder);
  },

  /**
   * The lowest position among active cursors: moved since `since`, or leased by a running
   * process at `now` (a consumer whose handler keeps failing holds its lease without moving).
   * Null when no cursor is active.
   */
  async lowestActive(db: Queryable, since: number, now: number): Promise<number | null> {
    const held = (await db('event_cursors')
      .where((q) => q.where('updated_at', '>=', since).orWhere('locked_until', '>=', now))
      .min({ id: 'last_event_id' })
      .first()) as { id: number | string | null } | undefined;
    return held?.id === null || held?.id === undefined ? null : Number(held.id);
  },
};
