import type { WebhooksConfig } from '../../config/config-schema.ts';
import type { Outbox, UnitOfWork } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import { webhookDeliveryRepository as deliveries, type DeliveryRow } from './webhook-delivery-repository.ts';
import { webhookRepository, type WebhookRecord } from './webhook-repository.ts';
import type { AttemptResult } from './webhook-attempt.ts';

export interface FinishedAttempt {
  row: DeliveryRow;
  webhook: WebhookRecord;
  token: string;
  result: AttemptResult;
  startedAt: number;
}

/**
 * Writes attempt outcomes: the delivery's new state (delivered, retried with the next due
 * time, or failed), the attempt row, and the webhook's failure clock, auto-disabling it
 * with a `system.alert` once it has failed for `autoDisableAfterSeconds`. Outcomes that
 * finish close together are written in one transaction, so many concurrent sends cost
 * a few commits rather than one each. A row whose lease was lost is left alone.
 */
export class AttemptRecorder {
  readonly #outbox: Outbox;
  readonly #config: WebhooksConfig;
  readonly #logger: Logger;
  readonly #now: () => number;
  #pending: FinishedAttempt[] = [];
  #flushing: Promise<void> | null = null;

  constructor(outbox: Outbox, config: WebhooksConfig, logger: Logger, now: () => number) {
    this.#outbox = outbox;
    this.#config = config;
    this.#logger = logger;
    this.#now = now;
  }

  /** Resolves once the outcome is committed (or its write failed and was logged). */
  record(attempt: FinishedAttempt): Promise<void> {
    this.#pending.push(attempt);
    this.#flushing ??= this.#flushLoop();
    return this.#flushing;
  }

  async #flushLoop(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#pending.length) {
      const batch = this.#pending.splice(0);
      try {
        await this.#outbox.transaction(async (uow) => {
          for (const attempt of batch) await this.#write(uow, attempt);
        });
      } catch (err) {
        // The rows stay leased; when the lease ends they are attempted again (at least once).
        this.#logger.error({ err: (err as Error).message, deliveries: batch.map((a) => a.row.id) }, 'could not record webhook attempts');
      }
    }
    this.#flushing = null;
  }

  async #write({ trx, emit }: UnitOfWork, { row, webhook, token, result, startedAt }: FinishedAttempt): Promise<void> {
    const config = this.#config;
    const now = this.#now();
    const attemptNumber = row.attempt_count + 1;
    const left = row.attempts_left - 1;
    const success = result.outcome === 'success';
    // attempts_left counts down through one round: schedule[0] after the 1st failure, and so on.
    const index = Math.min(Math.max(config.retryScheduleSeconds.length - left, 0), config.retryScheduleSeconds.length - 1);
    const delayMs = (config.retryScheduleSeconds[index] ?? 0) * 1000;
    const status = success ? 'delivered' : left > 0 ? 'retried' : 'failed';
    const kept = await deliveries.finishAttempt(trx, row.id, token, {
      status,
      attempt_count: attemptNumber,
      attempts_left: Math.max(left, 0),
      next_attempt_at: status === 'retried' ? startedAt + delayMs : null,
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
    // Test sends say nothing about the endpoint's health over time.
    if (row.event_kind === 'webhook.test') return;
    if (success) return webhookRepository.clearFailing(trx, webhook.id);
    const since = await webhookRepository.markFailing(trx, webhook.id, startedAt);
    const limitMs = config.autoDisableAfterSeconds * 1000;
    // Measured between attempt start times, so a slow endpoint's own timeout does not count.
    if (limitMs <= 0 || since === null || startedAt - since < limitMs) return;
    if (!(await webhookRepository.disable(trx, webhook.id, 'failing', now))) return;
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
    this.#logger.warn({ webhook: webhook.id, tenant: webhook.tenantId }, 'webhook auto-disabled after failing');
  }
}
