import type { RetentionConfig } from '../../config/retention-config.ts';
import type { Db, Queryable } from '../db/create-db.ts';
import type { Logger } from '../logger.ts';
import { PollLoop } from '../work/poll-loop.ts';

const DAY_MS = 86_400_000;

export interface SweepResult {
  events: number;
  webhookDeliveries: number;
  scanCallbacks: number;
}

/**
 * Deletes rows `ids` picks, one batch per statement until none are left. Ids are read
 * first because MariaDB refuses LIMIT inside an IN subquery and SQLite has no
 * DELETE … LIMIT; short statements keep locks short on a busy database.
 */
async function deleteInBatches(db: Queryable, table: string, key: string, ids: (limit: number) => Promise<Array<string | number>>, batchSize: number): Promise<number> {
  let total = 0;
  for (;;) {
    const batch = await ids(batchSize);
    if (!batch.length) return total;
    total += await db(table).whereIn(key, batch).delete();
    if (batch.length < batchSize) return total;
  }
}

/**
 * Keeps the database from growing without bound (worker role, every `sweepIntervalMs`):
 * - outbox events older than `eventsDays`, but never one an active consumer (a webhook
 *   dispatcher, a SIEM integration) has not read yet: a collector that is down for weeks
 *   still gets its backlog. A cursor neither moved nor leased for longer than the
 *   retention belongs to a consumer that is gone (a deleted integration) and no longer
 *   holds events back;
 * - delivered or failed webhook deliveries (attempts cascade) older than
 *   `webhookDeliveriesDays`: pending and retrying ones are never touched;
 * - delivered or failed scan callbacks older than `scanCallbacksDays`.
 * Every delete is idempotent, so several workers sweeping at once is harmless.
 */
export class RetentionSweeper {
  readonly #loop: PollLoop;

  constructor(
    private readonly db: Db,
    private readonly config: RetentionConfig,
    logger: Logger,
  ) {
    this.#loop = new PollLoop({
      round: async () => {
        const removed = await this.sweepOnce();
        if (removed.events || removed.webhookDeliveries || removed.scanCallbacks) logger.info({ removed }, 'retention sweep');
      },
      intervalMs: config.sweepIntervalMs,
      onError: (err) => logger.error({ err: err.message }, 'retention sweep failed; will retry'),
    });
  }

  start(): void {
    this.#loop.start();
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  async sweepOnce(now = Date.now()): Promise<SweepResult> {
    const { db, config } = this;
    return {
      events: await this.#sweepEvents(now - config.eventsDays * DAY_MS),
      webhookDeliveries: await deleteInBatches(db, 'webhook_deliveries', 'id', async (limit) =>
        (await db('webhook_deliveries').whereIn('status', ['delivered', 'failed']).where('created_at', '<', now - config.webhookDeliveriesDays * DAY_MS).limit(limit).pluck('id')) as string[], config.batchSize),
      scanCallbacks: await deleteInBatches(db, 'scan_callbacks', 'scan_id', async (limit) =>
        (await db('scan_callbacks').whereIn('status', ['delivered', 'failed']).where('updated_at', '<', now - config.scanCallbacksDays * DAY_MS).limit(limit).pluck('scan_id')) as string[], config.batchSize),
    };
  }

  async #sweepEvents(cutoff: number): Promise<number> {
    const { db, config } = this;
    // Active: moved within the retention, or leased by a running process (a consumer whose
    // handler keeps failing holds its lease without moving: its backlog must survive).
    const held = (await db('event_cursors')
      .where((q) => q.where('updated_at', '>=', cutoff).orWhere('locked_until', '>=', Date.now()))
      .min({ id: 'last_event_id' })
      .first()) as { id: number | string | null } | undefined;
    const readBy = held?.id === null || held?.id === undefined ? null : Number(held.id);
    return deleteInBatches(db, 'events', 'id', async (limit) => {
      const q = db('events').where('created_at', '<', cutoff).orderBy('id').limit(limit);
      if (readBy !== null) q.where('id', '<=', readBy);
      return (await q.pluck('id')) as number[];
    }, config.batchSize);
  }
}
