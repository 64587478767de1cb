import type { Queryable } from '../db/create-db.ts';

type Key = string | number;

/**
 * What the retention sweeper deletes, a batch of keys at a time. Keys are read first
 * because MariaDB refuses LIMIT inside an IN subquery and SQLite has no DELETE … LIMIT;
 * short statements keep locks short on a busy database.
 */
export const retentionRepository = {
  /** Delivered or failed webhook deliveries (not scan callbacks) created before `before`. */
  async finishedDeliveryIds(db: Queryable, before: number, limit: number): Promise<string[]> {
    return (await db('webhook_deliveries').whereIn('status', ['delivered', 'failed']).whereNull('scan_id').where('created_at', '<', before).limit(limit).pluck('id')) as string[];
  },

  /** Delivered or failed scan callbacks (deliveries of the webhook queue with a scan) last touched before `before`. */
  async finishedCallbackIds(db: Queryable, before: number, limit: number): Promise<string[]> {
    return (await db('webhook_deliveries').whereIn('status', ['delivered', 'failed']).whereNotNull('scan_id').where('updated_at', '<', before).limit(limit).pluck('id')) as string[];
  },

  /** Events created before `before`, oldest first, none after `readBy` (when set). */
  async oldEventIds(db: Queryable, before: number, readBy: number | null, limit: number): Promise<number[]> {
    const q = db('events').where('created_at', '<', before).orderBy('id').limit(limit);
    if (readBy !== null) q.where('id', '<=', readBy);
    return (await q.pluck('id')) as number[];
  },

  async deleteDeliveries(db: Queryable, ids: Key[]): Promise<number> {
    return db('webhook_deliveries').whereIn('id', ids).delete();
  },

  async deleteCallbacks(db: Queryable, ids: Key[]): Promise<number> {
    return db('webhook_deliveries').whereIn('id', ids).whereNotNull('scan_id').delete();
  },

  async deleteEvents(db: Queryable, ids: Key[]): Promise<number> {
    return db('events').whereIn('id', ids).delete();
  },
};
