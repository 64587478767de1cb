import type { WebhooksConfig } from '../../config/config-schema.ts';
import type { Db } from '../db/create-db.ts';
import type { Outbox } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import type { OutboundHttpClient } from '../outbound/http-client.ts';
import { webhookDeliveryRepository as deliveries, type DeliveryRow } from './webhook-delivery-repository.ts';
import { webhookRepository, type WebhookRecord } from './webhook-repository.ts';
import { PollLoop } from '../work/poll-loop.ts';
import { claimToken } from '../work/instance-id.ts';
import { errorMessage } from '../work/coerce-error.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { attemptDelivery, type AttemptResult } from './webhook-attempt.ts';
import { AttemptRecorder } from './webhook-attempt-recorder.ts';

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

/**
 * Sends due webhook deliveries, up to `concurrency` at a time. Each claim leases rows to
 * a token unique to that claim (`locked_by`, `locked_until` = now + leaseMs, longer than
 * the request timeout), so two workers, in this process or another, never send the same
 * attempt; a crashed worker's rows are claimed again when the lease runs out. Slots are
 * refilled as soon as any send finishes, so one slow endpoint holds one slot, not the
 * worker. Retries are rows with a due time: they survive restarts, and whichever
 * process is running claims them when they fall due.
 */
export class WebhookDeliveryWorker {
  readonly #d: DeliveryWorkerDeps;
  readonly #now: () => number;
  readonly #recorder: AttemptRecorder;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #loop: PollLoop;
  #abort = new AbortController();

  constructor(deps: DeliveryWorkerDeps) {
    this.#d = deps;
    this.#now = deps.now ?? Date.now;
    this.#recorder = new AttemptRecorder(deps.outbox, deps.config, deps.logger, this.#now);
    this.#loop = new PollLoop({
      round: () => this.#round(),
      intervalMs: deps.config.workerPollIntervalMs,
      onError: (err) => deps.logger.error({ err: err.message }, 'webhook worker claim failed; will retry'),
    });
  }

  /** A lease token unique to one claim. */
  static newToken(): string {
    return claimToken();
  }

  start(): void {
    if (this.#loop.running) return;
    this.#abort = new AbortController();
    this.#loop.start();
  }

  /** Stops claiming, aborts requests in flight (their leases are released unused) and waits. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#loop.stop();
    await Promise.allSettled([...this.#inFlight]);
  }

  /** Called when new deliveries exist, so they go out without waiting for the next poll. */
  wake(): void {
    this.#loop.wake();
  }

  /** Sends deliveries already leased to `token` and waits for their outcome (the test call). */
  async sendLeased(token: string): Promise<number> {
    const rows = await deliveries.leasedTo(this.#d.db, token);
    const hooks = await webhookRepository.findByIds(this.#d.db, [...new Set(rows.map((r) => r.webhook_id))]);
    await Promise.all(rows.map((row) => this.#send(row, hooks.get(row.webhook_id), token)));
    return rows.length;
  }

  /** Claims up to `limit` due deliveries and starts sending them; returns how many. */
  async #claimAndStart(limit: number): Promise<number> {
    const { db, config } = this.#d;
    const token = WebhookDeliveryWorker.newToken();
    const rows = await deliveries.claimDue(db, token, this.#now(), config.leaseMs, limit);
    if (!rows.length) return 0;
    const hooks = await webhookRepository.findByIds(db, [...new Set(rows.map((r) => r.webhook_id))]);
    for (const row of rows) {
      const task = this.#send(row, hooks.get(row.webhook_id), token).finally(() => {
        this.#inFlight.delete(task);
        this.#loop.wake();
      });
      this.#inFlight.add(task);
    }
    return rows.length;
  }

  async #send(row: DeliveryRow, webhook: WebhookRecord | undefined, token: string): Promise<void> {
    if (!webhook) return;
    const startedAt = this.#now();
    let result: AttemptResult;
    try {
      result = await attemptDelivery(this.#d, webhook, row, startedAt, this.#abort.signal);
    } catch (err) {
      // A secret or header blob that cannot be opened (wrong key configured): a failed attempt, not a crash.
      result = { outcome: 'failure', responseCode: null, durationMs: 0, errorCode: 'secret_unavailable', errorMessage: errorMessage(err, 300), responseBody: null };
    }
    if (result.outcome === 'aborted') {
      // Shutting down: give the row back without spending an attempt.
      await deliveries.release(this.#d.db, row.id, token).catch(() => undefined);
      return;
    }
    await this.#recorder.record({ row, webhook, token, result, startedAt });
  }

  /** One claim round; returns how long to sleep (0: a full batch was due, claim again at once). */
  async #round(): Promise<number> {
    const { db, config } = this.#d;
    const free = config.concurrency - this.#inFlight.size;
    const asked = Math.min(free, config.batchSize);
    const claimed = free > 0 ? await this.#claimAndStart(asked) : 0;
    if (claimed > 0 && claimed === asked && asked < free) return 0;
    let wait = config.workerPollIntervalMs;
    if (claimed === 0 && free > 0) {
      try {
        const due = await deliveries.nextDueAt(db, this.#now());
        if (due !== null) wait = Math.max(5, Math.min(wait, due - this.#now()));
      } catch {
        // keep the poll interval
      }
    }
    // Until then a wake-up (new deliveries, a freed slot) starts the next round early.
    return wait;
  }
}
