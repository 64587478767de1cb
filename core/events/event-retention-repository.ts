import type { Queryable } from '../db/create-db.ts';

/**
 * The outbox rows the retention sweeper (core/retention) removes once every consumer has
 * read them: the events table is written only in its own feature. Ids are read first, a
 * batch at a time (MariaDB refuses LIMIT inside an IN subquery, SQLite has no DELETE … LIMIT).
 */
export const eventRetentionRepository = {
  /** Events created before `before`, oldest first, none after `readBy` (when set). */
  async oldEventIds(db: Queryable, before: number, readBy: number | null, limit: number): Promise<number[]> {
    const q = db('events').where('created_at', '<', before).orderBy('id').limit(limit);
    if (readBy !== null) q.where('id', '<=', readBy);
    return (await q.pluck('id')) as number[];
  },

  async deleteEvents(db: Queryable, ids: Array<string | number>): Promise<number> {
    return db('events').whereIn('id', ids).delete();
  },
};
