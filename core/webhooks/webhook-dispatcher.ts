import type { Config } from '../../config/config-schema.ts';
import type { Db } from '../db/create-db.ts';
import type { EventBus } from '../events/event-bus.ts';
import { EventConsumer } from '../events/event-consumer.ts';
import { WEBHOOK_EVENT_KINDS, type StoredEventKind } from '../domain/event-kinds.ts';
import { newId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import type { PlatformEvent } from '../plugin-api/index.ts';
import { webhookDeliveryRepository, type NewDelivery } from './webhook-delivery-repository.ts';
import { tagsOfAssets, webhookRepository, type WebhookRecord } from './webhook-repository.ts';
import { eventAssetId, matchesAssetTags, matchesWithoutTags, needsAssetTags } from './webhook-filter.ts';
import { webhookBody } from './webhook-payload.ts';
import { retryOnDeadlock } from '../db/retry-deadlock.ts';

/**
 * Turns outbox events into delivery rows. It reads the events table from its own durable
 * cursor (`webhooks`), so events emitted while no process runs it, or while endpoints are
 * down, are picked up later; delivery rows are unique per (webhook, event), so a batch
 * handled twice after a crash creates nothing twice. An event goes only to active
 * webhooks of its own tenant that existed when it happened and whose subscription and
 * filters match. `webhook.test` events are addressed to one webhook and created by the
 * test call itself.
 */
export class WebhookDispatcher {
  readonly #consumer: EventConsumer;
  readonly #db: Db;
  readonly #attempts: number;

  constructor(deps: { db: Db; bus: EventBus; logger: Logger; config: Config; onDeliveries: () => void }) {
    this.#db = deps.db;
    this.#attempts = deps.config.webhooks.retryScheduleSeconds.length + 1;
    this.#consumer = new EventConsumer({
      name: 'webhooks',
      db: deps.db,
      bus: deps.bus,
      logger: deps.logger,
      pollIntervalMs: deps.config.events.pollIntervalMs,
      gapGraceMs: deps.config.events.gapGraceMs,
      leaseMs: deps.config.events.consumerLeaseMs,
      handle: async (events) => {
        if (await this.dispatch(events)) deps.onDeliveries();
      },
    });
  }

  start(): Promise<void> {
    return this.#consumer.start();
  }

  stop(): Promise<void> {
    return this.#consumer.stop();
  }

  /** Handles everything in the outbox now (tests, benchmarks). */
  drain(): Promise<number> {
    return this.#consumer.drain();
  }

  /** Creates the delivery rows for a batch of events; returns how many. */
  async dispatch(events: PlatformEvent[]): Promise<number> {
    const relevant = events.filter((e) => e.tenantId && e.kind !== 'webhook.test' && WEBHOOK_EVENT_KINDS.includes(e.kind as StoredEventKind));
    if (!relevant.length) return 0;
    const tenants = [...new Set(relevant.map((e) => e.tenantId!))];
    const hooks = await webhookRepository.activeForTenants(this.#db, tenants);
    if (!hooks.length) return 0;
    const byTenant = new Map<string, WebhookRecord[]>();
    for (const h of hooks) byTenant.set(h.tenantId, [...(byTenant.get(h.tenantId) ?? []), h]);

    const candidates: Array<{ event: PlatformEvent; hook: WebhookRecord }> = [];
    for (const event of relevant) {
      const at = Date.parse(event.timestamp);
      for (const hook of byTenant.get(event.tenantId!) ?? []) {
        if (hook.createdAt <= at && matchesWithoutTags(hook.events, hook.filters, event)) candidates.push({ event, hook });
      }
    }
    const tags = await this.#assetTags(candidates.filter((c) => needsAssetTags(c.hook.filters)).map((c) => c.event));
    const now = Date.now();
    const rows: NewDelivery[] = candidates
      .filter(({ event, hook }) => {
        if (!needsAssetTags(hook.filters)) return true;
        const assetId = eventAssetId(event);
        return matchesAssetTags(hook.filters, assetId ? (tags.get(`${event.tenantId}/${assetId}`) ?? []) : null);
      })
      .map(({ event, hook }) => ({
        id: newId('dlv'),
        tenantId: hook.tenantId,
        webhookId: hook.id,
        eventId: Number(event.id),
        eventKind: event.kind,
        payload: JSON.stringify(webhookBody(event)),
        attemptsLeft: this.#attempts,
        now,
      }));
    // A delivery worker's locking claim (core/work/lease-queue.ts) can make MariaDB pick this insert as a deadlock
    // victim; the insert is idempotent per (webhook, event), so running it again is safe.
    if (rows.length) await retryOnDeadlock(() => webhookDeliveryRepository.insertMany(this.#db, rows));
    return rows.length;
  }

  /** Tags of the assets these events are about, keyed `<tenant>/<asset>`. */
  async #assetTags(events: PlatformEvent[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    const byTenant = new Map<string, Set<string>>();
    for (const e of events) {
      const assetId = eventAssetId(e);
      if (assetId) byTenant.set(e.tenantId!, (byTenant.get(e.tenantId!) ?? new Set()).add(assetId));
    }
    for (const [tenantId, ids] of byTenant) {
      const tags = await tagsOfAssets(this.#db, tenantId, [...ids]);
      for (const [assetId, list] of tags) out.set(`${tenantId}/${assetId}`, list);
    }
    return out;
  }
}
