import type { WebhooksConfig } from '../../config/config-schema.ts';
import { retryOnDeadlock } from '../db/retry-deadlock.ts';
import type { Outbox, UnitOfWork } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import { errorMessage } from '../work/coerce-error.ts';
import { attemptOutcomeRepository as outcomes, type DeliveryOutcome } from './attempt-outcome-repository.ts';
import type { DeliveryRow } from './webhook-delivery-repository.ts';
import { webhookRepository, type WebhookRecord } from './webhook-repository.ts';
import type { AttemptResult } from './webhook-attempt.ts';
import { FailureLog } from './failure-log.ts';
import { callbackRetryDelayMs, type CallbackSettings } from './scan-callback-target.ts';

/** Hears each attempt once it is recorded: the delivery's new status and the attempt's number. */
export type AttemptObserver = (status: 'delivered' | 'retried' | 'failed', attempt: number) => void;

export interface FinishedAttempt {
  row: DeliveryRow;
  /** Null for a scan callback's delivery. */
  webhook: WebhookRecord | null;
  token: string;
  result: AttemptResult;
  startedAt: number;
}

/**
 * Writes attempt outcomes: the delivery's new state (delivered, retried with the next due
 * time, or failed), the attempt row, and the webhook's failure clock, auto-disabling it
 * with a `system.alert` once it has failed for `autoDisableAfterSeconds`. Outcomes that
 * finish while a write is under way are written together in the next transaction, with
 * bulk statements (attempt-outcome-repository.ts), so many concurrent sends cost a few
 * commits and a few statements rather than three statements each. A row whose lease was
 * lost is left alone. A failure before any response is logged once per webhook and cause
 * (failure-log.ts). A scan callback's attempt follows the callback schedule
 * (`scans.callbacks.retryScheduleSeconds`) and touches no webhook; its final failure is
 * logged once, with the scan's id.
 */
export class AttemptRecorder {
  readonly #outbox: Outbox;
  readonly #config: WebhooksConfig;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #failures: FailureLog;
  readonly #onDisabled: (webhookId: string) => void;
  readonly #observe: AttemptObserver;
  readonly #callbacks: CallbackSettings;
  #pending: FinishedAttempt[] = [];
  #flushing: Promise<void> | null = null;

  constructor(outbox: Outbox, config: WebhooksConfig, logger: Logger, now: () => number, callbacks: CallbackSettings, onDisabled: (webhookId: string) => void = () => {}, observe: AttemptObserver = () => {}) {
    this.#outbox = outbox;
    this.#config = config;
    this.#logger = logger;
    this.#now = now;
    this.#failures = new FailureLog(logger);
    this.#onDisabled = onDisabled;
    this.#observe = observe;
    this.#callbacks = callbacks;
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
        // A deadlock victim on MariaDB is written again: otherwise its rows would be sent again after the lease.
        const { written, disabled } = await retryOnDeadlock(() => this.#outbox.transaction((uow) => this.#write(uow, batch)));
        for (const attempt of written) {
          const { webhook, row, result } = attempt;
          if (webhook) {
            this.#failures.note({ webhook, row, result });
            this.#observe(this.#status(attempt), row.attempt_count + 1);
          } else if (this.#status(attempt) === 'failed') {
            this.#logger.warn({ scan_id: row.scan_id, attempts: row.attempt_count + 1, error: result.errorMessage }, 'scan callback failed for good');
          }
        }
        for (const webhook of disabled) {
          this.#logger.warn({ webhook: webhook.id, tenant: webhook.tenantId }, 'webhook auto-disabled after failing');
          this.#onDisabled(webhook.id);
        }
      } catch (err) {
        // The rows stay leased; when the lease ends they are attempted again (at least once).
        this.#logger.error({ err: errorMessage(err), deliveries: batch.map((a) => a.row.id) }, 'could not record webhook attempts');
      }
    }
    this.#flushing = null;
  }

  #status({ row, result, webhook }: FinishedAttempt): 'delivered' | 'retried' | 'failed' {
    if (result.outcome === 'success') return 'delivered';
    if (!webhook) return callbackRetryDelayMs(this.#callbacks, row.attempt_count) === null ? 'failed' : 'retried';
    return row.attempts_left - 1 > 0 ? 'retried' : 'failed';
  }

  #outcome(attempt: FinishedAttempt, now: number): DeliveryOutcome {
    const { row, result, startedAt } = attempt;
    if (!attempt.webhook) return this.#callbackOutcome(attempt, now);
    const schedule = this.#config.retryScheduleSeconds;
    const left = row.attempts_left - 1;
    const success = result.outcome === 'success';
    // attempts_left counts down through one round: schedule[0] after the 1st failure, and so on.
    const index = Math.min(Math.max(schedule.length - left, 0), schedule.length - 1);
    const delayMs = (schedule[index] ?? 0) * 1000;
    const status = this.#status(attempt);
    return {
      status,
      attempt_count: row.attempt_count + 1,
      attempts_left: Math.max(left, 0),
      next_attempt_at: status === 'retried' ? startedAt + delayMs : null,
      last_response_code: result.responseCode,
      last_duration_ms: result.durationMs,
      last_error: result.errorMessage,
      last_attempt_at: startedAt,
      delivered_at: success ? now : null,
      updated_at: now,
    };
  }

  /** A scan callback's: the next attempt `schedule[n]` after the (n+1)th failure, counted from now. */
  #callbackOutcome(attempt: FinishedAttempt, now: number): DeliveryOutcome {
    const { row, result, startedAt } = attempt;
    const status = this.#status(attempt);
    const delayMs = callbackRetryDelayMs(this.#callbacks, row.attempt_count) ?? 0;
    return {
      status,
      attempt_count: row.attempt_count + 1,
      attempts_left: Math.max(this.#callbacks.retryScheduleSeconds.length - row.attempt_count, 0),
      next_attempt_at: status === 'retried' ? now + delayMs : null,
      last_response_code: result.responseCode,
      last_duration_ms: result.durationMs,
      last_error: result.errorMessage,
      last_attempt_at: startedAt,
      delivered_at: status === 'delivered' ? now : null,
      updated_at: now,
    };
  }

  /** Writes one batch; returns the attempts actually recorded (their lease was still held) and the webhooks it disabled. */
  async #write(uow: UnitOfWork, batch: FinishedAttempt[]): Promise<{ written: FinishedAttempt[]; disabled: WebhookRecord[] }> {
    const now = this.#now();
    const kept = await outcomes.finishAttempts(uow.trx, batch.map((a) => ({ id: a.row.id, token: a.token, changes: this.#outcome(a, now) })));
    const written = batch.filter((a) => kept.has(a.row.id));
    await outcomes.insertAttempts(uow.trx, written.map(({ row, result, startedAt }) => ({
      tenantId: row.tenant_id, deliveryId: row.id, attemptNumber: row.attempt_count + 1, outcome: result.outcome === 'success' ? 'success' : 'failure',
      responseCode: result.responseCode, durationMs: result.durationMs, errorCode: result.errorCode,
      errorMessage: result.errorMessage, responseBody: result.responseBody, attemptedAt: startedAt,
    })));
    // Test sends say nothing about the endpoint's health over time.
    const disabled = await this.#failureClocks(uow, written.flatMap((a) => (a.webhook && a.row.event_kind !== 'webhook.test' ? [{ ...a, webhook: a.webhook }] : [])), now);
    return { written, disabled };
  }

  /**
   * Each webhook's failure clock after the batch, as if its attempts had been written one
   * by one in the order they finished: a success stops the clock, a failure starts it if
   * stopped, and a failure starting `autoDisableAfterSeconds` after the clock disables the
   * webhook (measured between attempt start times, so a slow endpoint's own timeout does
   * not count). Webhooks with successes only need one statement for the whole batch.
   */
  async #failureClocks({ trx, emit }: UnitOfWork, attempts: Array<FinishedAttempt & { webhook: WebhookRecord }>, now: number): Promise<WebhookRecord[]> {
    const failing = new Set(attempts.filter((a) => a.result.outcome !== 'success').map((a) => a.webhook.id));
    await webhookRepository.clearFailingMany(trx, [...new Set(attempts.map((a) => a.webhook.id))].filter((id) => !failing.has(id)));
    const disabled: WebhookRecord[] = [];
    if (!failing.size) return disabled;
    const clocks = await webhookRepository.failureClocks(trx, [...failing]);
    const limitMs = this.#config.autoDisableAfterSeconds * 1000;
    for (const [id, stored] of clocks) {
      let since = stored;
      let passedSince: number | null = null;
      let webhook: WebhookRecord | null = null;
      for (const a of attempts) {
        if (a.webhook.id !== id) continue;
        webhook = a.webhook;
        if (a.result.outcome === 'success') {
          since = null;
          continue;
        }
        since ??= a.startedAt;
        if (limitMs > 0 && passedSince === null && a.startedAt - since >= limitMs) passedSince = since;
      }
      if (since !== stored) await webhookRepository.setFailingSince(trx, id, since);
      if (!webhook || passedSince === null) continue;
      // Only the process whose update flipped `active` raises the alert.
      if (!(await webhookRepository.disable(trx, id, 'failing', now))) continue;
      await emit({
        tenantId: webhook.tenantId,
        kind: 'system.alert',
        data: {
          alert_type: 'webhook_disabled',
          message: `Webhook "${webhook.name}" was disabled after failing for ${this.#config.autoDisableAfterSeconds} seconds; re-enable it with PUT /api/webhooks/${webhook.id} {"active": true}.`,
          webhook_id: webhook.id,
          failing_since: new Date(passedSince).toISOString(),
        },
      });
      disabled.push(webhook);
    }
    return disabled;
  }
}
