import type { RetentionConfig } from '../../config/retention-config.ts';
import type { Db } from '../db/create-db.ts';
import { eventCursorRepository } from '../events/event-cursor-repository.ts';
import { eventRetentionRepository as events } from '../events/event-retention-repository.ts';
import { deliveryRetentionRepository as deliveries } from '../webhooks/delivery-retention-repository.ts';
import type { Logger } from '../logger.ts';
import { PollLoop } from '../work/poll-loop.ts';

const DAY_MS = 86_400_000;

export interface SweepResult {
  events: number;
  webhookDeliveries: number;
  scanCallbacks: number;
}

/** Deletes what `ids` picks, one batch per statement, until none are left. */
async function deleteInBatches(ids: (limit: number) => Promise<Array<string | number>>, remove: (batch: Array<string | number>) => Promise<number>, batchSize: number): Promise<number> {
  let total = 0;
  for (;;) {
    const batch = await ids(batchSize);
    if (!batch.length) return total;
    total += await remove(batch);
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
      webhookDeliveries: await deleteInBatches(
        (limit) => deliveries.finishedDeliveryIds(db, now - config.webhookDeliveriesDays * DAY_MS, limit), (ids) => deliveries.deleteDeliveries(db, ids), config.batchSize),
      scanCallbacks: await deleteInBatches(
        (limit) => deliveries.finishedCallbackIds(db, now - config.scanCallbacksDays * DAY_MS, limit), (ids) => deliveries.deleteCallbacks(db, ids), config.batchSize),
    };
  }

  async #sweepEvents(cutoff: number): Promise<number> {
    const { db, config } = this;
    // Active: moved within the retention, or leased by a running process (a consumer whose
    // handler keeps failing holds its lease without moving: its backlog must survive).
    const readBy = await eventCursorRepository.lowestActive(db, cutoff, Date.now());
    return deleteInBatches((limit) => events.oldEventIds(db, cutoff, readBy, limit), (ids) => events.deleteEvents(db, ids), config.batchSize);
  }
}
