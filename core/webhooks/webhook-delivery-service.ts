import type { WebhooksConfig } from '../../config/config-schema.ts';
import type { Db } from '../db/create-db.ts';
import { ConflictError, InputError, NotFoundError } from '../errors.ts';
import { eventRepository } from '../events/event-repository.ts';
import type { Outbox } from '../events/outbox.ts';
import type { EventPayloads, WebhookTestData } from '../domain/event-payloads.ts';
import { newId } from '../ids.ts';
import type { Page, PageRequest } from '../db/paginate.ts';
import { webhookDeliveryRepository as deliveries, type AttemptRow, type DeliveryRow } from './webhook-delivery-repository.ts';
import type { DeliveryStatus } from './delivery-status.ts';
import { webhookRepository } from './webhook-repository.ts';
import { WebhookDeliveryWorker } from './webhook-delivery-worker.ts';
import { webhookBody } from './webhook-payload.ts';

/** Sample data of `webhook.test` (the spec leaves it open): a `finding.new`-shaped example. */
function sampleData(webhookId: string): WebhookTestData {
  return {
    webhook_id: webhookId,
    message: 'Test event from Rampart. Verify the signature, answer 2xx quickly, de-duplicate on id.',
    sample: {
      finding_id: 'fnd_00000000000000000000000000',
      title: 'Example: TLS 1.0 enabled',
      severity: 'medium',
      cvss: 5.3,
      asset: { id: 'ast_00000000000000000000000000', name: 'example.com', type: 'domain' },
      scan_id: 'scn_00000000000000000000000000',
    },
  };
}

/** Deliveries of a webhook: test sends, history, manual retry and bulk recovery. */
export class WebhookDeliveryService {
  readonly #db: Db;
  readonly #outbox: Outbox<EventPayloads>;
  readonly #worker: WebhookDeliveryWorker;
  readonly #config: WebhooksConfig;

  constructor(db: Db, outbox: Outbox<EventPayloads>, worker: WebhookDeliveryWorker, config: WebhooksConfig) {
    this.#db = db;
    this.#outbox = outbox;
    this.#worker = worker;
    this.#config = config;
  }

  async #webhook(tenantId: string, id: string) {
    const hook = await webhookRepository.findById(this.#db, tenantId, id);
    if (!hook) throw new NotFoundError('Webhook');
    return hook;
  }

  /**
   * Emits a `webhook.test` event (the stream sees it too) and sends it to this webhook
   * only, now, with one attempt and no retries; answers with the outcome. The delivery
   * row is created already leased to this call, so no background worker takes it.
   */
  async sendTest(tenantId: string, webhookId: string): Promise<DeliveryRow> {
    await this.#webhook(tenantId, webhookId);
    const token = WebhookDeliveryWorker.newToken();
    const deliveryId = newId('dlv');
    await this.#outbox.transaction(async ({ trx, emit }) => {
      const eventId = await emit({ tenantId, kind: 'webhook.test', data: sampleData(webhookId) });
      const event = (await eventRepository.findById(trx, eventId))!;
      const now = Date.now();
      await deliveries.insertMany(trx, [{
        id: deliveryId, tenantId, webhookId, eventId, eventKind: 'webhook.test', payload: JSON.stringify(webhookBody(event)),
        attemptsLeft: 1, now, lease: { token, until: now + this.#config.leaseMs },
      }]);
    });
    await this.#worker.sendLeased(token);
    return (await deliveries.findById(this.#db, tenantId, webhookId, deliveryId))!;
  }

  async list(tenantId: string, webhookId: string, page: PageRequest, status?: DeliveryStatus): Promise<Page<DeliveryRow>> {
    await this.#webhook(tenantId, webhookId);
    return deliveries.list(this.#db, tenantId, webhookId, page, status);
  }

  async get(tenantId: string, webhookId: string, deliveryId: string): Promise<{ delivery: DeliveryRow; attempts: AttemptRow[] }> {
    await this.#webhook(tenantId, webhookId);
    const delivery = await deliveries.findById(this.#db, tenantId, webhookId, deliveryId);
    if (!delivery) throw new NotFoundError('Delivery');
    return { delivery, attempts: await deliveries.attempts(this.#db, deliveryId) };
  }

  /** A failed delivery starts a fresh round of attempts (the full schedule), the first one now. */
  async retry(tenantId: string, webhookId: string, deliveryId: string): Promise<DeliveryRow> {
    const hook = await this.#webhook(tenantId, webhookId);
    const existing = await deliveries.findById(this.#db, tenantId, webhookId, deliveryId);
    if (!existing) throw new NotFoundError('Delivery');
    if (!hook.active) throw new ConflictError('The webhook is inactive; activate it before retrying deliveries.', 'webhook_inactive');
    if (existing.status !== 'failed') throw new ConflictError(`Only failed deliveries can be retried; this one is ${existing.status}.`, 'delivery_not_failed', { delivery_status: existing.status });
    await deliveries.requeueFailed(this.#db, tenantId, webhookId, { ids: [deliveryId] }, this.#config.retryScheduleSeconds.length + 1, Date.now());
    this.#worker.wake();
    return (await deliveries.findById(this.#db, tenantId, webhookId, deliveryId))!;
  }

  /** Requeues every failed delivery created in [from, to); returns how many. */
  async recover(tenantId: string, webhookId: string, from: number, to: number | null): Promise<number> {
    const hook = await this.#webhook(tenantId, webhookId);
    if (to !== null && to <= from) throw new InputError('until must be after since.', 'invalid_range', { field: 'until' });
    if (!hook.active) throw new ConflictError('The webhook is inactive; activate it before recovering deliveries.', 'webhook_inactive');
    const n = await deliveries.requeueFailed(this.#db, tenantId, webhookId, { from, to: to ?? undefined }, this.#config.retryScheduleSeconds.length + 1, Date.now());
    if (n) this.#worker.wake();
    return n;
  }
}
