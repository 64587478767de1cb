import type { Queryable } from '../db/create-db.ts';

type Key = string | number;

/**
 * The webhook queue's finished rows the retention sweeper (core/retention) removes, a batch
 * of keys at a time: the queue's table is written only here, in its own feature. Keys are
 * read first because MariaDB refuses LIMIT inside an IN subquery and SQLite has no
 * DELETE … LIMIT; short statements keep locks short on a busy database.
 */
export const deliveryRetentionRepository = {
  /** Delivered or failed webhook deliveries (not scan callbacks) created before `before`. */
  async finishedDeliveryIds(db: Queryable, before: number, limit: number): Promise<string[]> {
    return (await db('webhook_deliveries').whereIn('status', ['delivered', 'failed']).whereNull('scan_id').where('created_at', '<', before).limit(limit).pluck('id')) as string[];
  },

  /** Delivered or failed scan callbacks (deliveries of the webhook queue with a scan) last touched before `before`. */
  async finishedCallbackIds(db: Queryable, before: number, limit: number): Promise<string[]> {
    return (await db('webhook_deliveries').whereIn('status', ['delivered', 'failed']).whereNotNull('scan_id').where('updated_at', '<', before).limit(limit).pluck('id')) as string[];
  },

  async deleteDeliveries(db: Queryable, ids: Key[]): Promise<number> {
    return db('webhook_deliveries').whereIn('id', ids).delete();
  },

  async deleteCallbacks(db: Queryable, ids: Key[]): Promise<number> {
    return db('webhook_deliveries').whereIn('id', ids).whereNotNull('scan_id').delete();
  },
};
