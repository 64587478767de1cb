import type { WebhooksConfig } from '../../config/config-schema.ts';
import type { Db } from '../db/create-db.ts';
import { INSTANCE_ID } from '../events/event-consumer.ts';
import type { Outbox } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import type { OutboundHttpClient } from '../outbound/http-client.ts';
import { webhookDeliveryRepository as deliveries, type DeliveryRow } from '../repositories/webhook-delivery-repository.ts';
import { webhookRepository, type WebhookRecord } from '../repositories/webhook-repository.ts';
import type { SecretBox } from './secret-box.ts';
import { attemptDelivery, type AttemptResult } from './webhook-attempt.ts';

export interface DeliveryWorkerDeps {
  db: Db;
  outbox: Outbox;
  client: OutboundHttpClient;
  box: SecretBox;
  config: WebhooksConfig;
  logger: Logger;
  /** Injectable clock (tests); epoch ms. */
  now?: () => number;
}

let claimSeq = 0;

/**
 * Sends due webhook deliveries. Each claim leases rows to a token unique to this claim
 * (`locked_by`, `locked_until` = now + leaseMs, longer than the request timeout), so two
 * workers, in this process or another, never send the same attempt; a crashed worker's
 * rows are claimed again when the lease runs out. Retries are rows with a due time, so
 * they survive restarts: a new process simply claims them when they fall due.
 */
export class WebhookDeliveryWorker {
  readonly #d: DeliveryWorkerDeps;
  readonly #now: () => number;
  #running = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  #abort = new AbortController();

  constructor(deps: DeliveryWorkerDeps) {
    this.#d = deps;
    this.#now = deps.now ?? Date.now;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#abort = new AbortController();
    this.#loop = this.#run();
  }

  /** Stops claiming, aborts requests in flight (their leases are released unused) and waits. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#abort.abort();
    this.#wake?.();
    await this.#loop;
  }

  /** Called when new deliveries exist, so they go out without waiting for the next poll. */
  wake(): void {
    this.#wake?.();
  }

  /** A lease token unique to one claim. */
  static newToken(): string {
    return `${INSTANCE_ID}#${++claimSeq}`;
  }

  /** Claims one batch of due deliveries and sends them; returns how many were attempted. */
  async runOnce(): Promise<number> {
    const { db, config } = this.#d;
    const token = WebhookDeliveryWorker.newToken();
    const rows = await deliveries.claimDue(db, token, this.#now(), config.leaseMs, config.batchSize);
    return this.#sendAll(rows, token);
  }

  /** Sends deliveries already leased to `token` (the test call pre-leases its delivery). */
  async sendLeased(token: string): Promise<number> {
    return this.#sendAll(await deliveries.leasedTo(this.#d.db, token), token);
  }

  async #sendAll(rows: DeliveryRow[], token: string): Promise<number> {
    const { db, config } = this.#d;
    if (!rows.length) return 0;
    const hooks = await webhookRepository.findByIds(db, [...new Set(rows.map((r) => r.webhook_id))]);
    let next = 0;
    const lane = async () => {
      while (next < rows.length) {
        const row = rows[next++]!;
        await this.#send(row, hooks.get(row.webhook_id), token).catch((err: Error) =>
          this.#d.logger.error({ delivery: row.id, err: err.message }, 'webhook delivery bookkeeping failed; the lease will expire and it is retried'),
        );
      }
    };
    await Promise.all(Array.from({ length: Math.min(config.concurrency, rows.length) }, lane));
    return rows.length;
  }

  async #send(row: DeliveryRow, webhook: WebhookRecord | undefined, token: string): Promise<void> {
    const now = this.#now();
    if (!webhook) return;
    let result: AttemptResult;
    try {
      result = await attemptDelivery(this.#d, webhook, row, now, this.#abort.signal);
    } catch (err) {
      // A secret or header blob that cannot be opened (wrong key configured): a failed attempt, not a crash.
      result = { outcome: 'failure', responseCode: null, durationMs: 0, errorCode: 'secret_unavailable', errorMessage: (err as Error).message.slice(0, 300), responseBody: null };
    }
    if (result.outcome === 'aborted') {
      await deliveries.finishAttempt(this.#d.db, row.id, token, {});
      return;
    }
    await this.#record(row, webhook, token, result, now);
  }

  async #record(row: DeliveryRow, webhook: WebhookRecord, token: string, result: AttemptResult, startedAt: number): Promise<void> {
    const { config, outbox } = this.#d;
    const now = this.#now();
    const attemptNumber = row.attempt_count + 1;
    const left = row.attempts_left - 1;
    const success = result.outcome === 'success';
    const roundSize = config.retryScheduleSeconds.length + 1;
    const delay = config.retryScheduleSeconds[Math.min(Math.max(roundSize - 1 - left, 0), config.retryScheduleSeconds.length - 1)] ?? 0;
    const status = success ? 'delivered' : left > 0 ? 'retried' : 'failed';
    const isTest = row.event_kind === 'webhook.test';
    await outbox.transaction(async ({ trx, emit }) => {
      const kept = await deliveries.finishAttempt(trx, row.id, token, {
        status,
        attempt_count: attemptNumber,
        attempts_left: Math.max(left, 0),
        next_attempt_at: status === 'retried' ? startedAt + delay * 1000 : null,
        last_response_code: result.responseCode,
        last_duration_ms: result.durationMs,
        last_error: result.errorMessage,
        last_attempt_at: startedAt,
        delivered_at: success ? now : null,
        updated_at: now,
      });
      if (!kept) return;
      await deliveries.insertAttempt(trx, {
        tenantId: row.tenant_id, deliveryId: row.id, attemptNumber, outcome: success ? 'success' : 'failure',
        responseCode: result.responseCode, durationMs: result.durationMs, errorCode: result.errorCode,
        errorMessage: result.errorMessage, responseBody: result.responseBody, attemptedAt: startedAt,
      });
      if (isTest) return;
      if (success) return webhookRepository.clearFailing(trx, webhook.id);
      const since = await webhookRepository.markFailing(trx, webhook.id, startedAt);
      const limitMs = config.autoDisableAfterSeconds * 1000;
      if (limitMs > 0 && since !== null && now - since >= limitMs && (await webhookRepository.disable(trx, webhook.id, 'failing', now))) {
        await emit({
          tenantId: webhook.tenantId,
          kind: 'system.alert',
          data: {
            alert_type: 'webhook_disabled',
            message: `Webhook "${webhook.name}" was disabled after failing for ${config.autoDisableAfterSeconds} seconds; re-enable it with PUT /api/webhooks/${webhook.id} {"active": true}.`,
            webhook_id: webhook.id,
            failing_since: new Date(since).toISOString(),
          },
        });
        this.#d.logger.warn({ webhook: webhook.id, tenant: webhook.tenantId }, 'webhook auto-disabled after failing');
      }
    });
  }

  async #run(): Promise<void> {
    const { db, config, logger } = this.#d;
    while (this.#running) {
      let sent = 0;
      try {
        sent = await this.runOnce();
      } catch (err) {
        logger.error({ err: (err as Error).message }, 'webhook worker pass failed; will retry');
      }
      if (!this.#running) break;
      if (sent > 0) continue;
      let wait = config.workerPollIntervalMs;
      try {
        const due = await deliveries.nextDueAt(db, this.#now());
        if (due !== null) wait = Math.max(5, Math.min(wait, due - this.#now()));
      } catch {
        // keep the poll interval
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = null;
    }
  }
}
