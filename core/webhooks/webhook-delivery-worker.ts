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
import { prepareWebhook, sendAttempt, webhookTarget, type AttemptResult, type PreparedWebhook, type SendTarget } from './webhook-attempt.ts';
import { callbackTarget, type CallbackSettings } from './scan-callback-target.ts';
import { type AttemptObserver, AttemptRecorder } from './webhook-attempt-recorder.ts';

export interface DeliveryWorkerDeps {
  db: Db;
  outbox: Outbox;
  client: OutboundHttpClient;
  box: SecretBox;
  config: WebhooksConfig;
  /** Scan callbacks' timeout and retry schedule (`scans.callbacks`); default: the webhooks'. */
  callbacks?: CallbackSettings;
  logger: Logger;
  /** Injectable clock (tests); epoch ms. */
  now?: () => number;
  /** Told each recorded attempt's outcome and number (the metrics). */
  onAttempt?: AttemptObserver;
}

/**
 * A claimed row waiting for a slot, with its webhook opened once for the whole claim (or
 * why it could not be); a scan callback's row has no webhook and opens its own secret.
 */
interface Claimed {
  row: DeliveryRow;
  token: string;
  record: WebhookRecord | null;
  webhook: PreparedWebhook | Error | null;
}

/**
 * Sends due webhook deliveries, up to `concurrency` at a time. Rows are claimed in
 * batches (`batchSize`) under a lease token unique to the claim (`locked_by`,
 * `locked_until` = now + leaseMs), so two workers, in this process or another, never send
 * the same attempt; a crashed worker's rows are claimed again when the lease runs out.
 * Claimed rows wait in a local queue and go out as slots free up (one slow endpoint holds
 * one slot, not the worker). A row only starts while its lease still covers a whole
 * request plus a margin (`#startable`); otherwise it is given back unsent, so waiting in
 * the queue can never let the lease run out under a request in flight. A slot is freed
 * as soon as the HTTP exchange ends; the outcome is written by the recorder, in bulk,
 * with the row still leased until then. Retries are rows with a due time: they survive
 * restarts, and whichever process is running claims them when they fall due. Scan
 * callbacks are rows of the same queue (scan-callback-target.ts): same claim, lease,
 * signing and recording, with their own URL, secret and retry schedule.
 */
export class WebhookDeliveryWorker {
  readonly #d: DeliveryWorkerDeps;
  readonly #now: () => number;
  readonly #callbacks: CallbackSettings;
  readonly #recorder: AttemptRecorder;
  readonly #tasks = new Set<Promise<void>>();
  readonly #loop: PollLoop;
  #queue: Claimed[] = [];
  #sending = 0;
  /** The last claim was full or new deliveries were announced: a draining queue should claim again. */
  #moreDue = true;
  #abort = new AbortController();

  constructor(deps: DeliveryWorkerDeps) {
    this.#d = deps;
    this.#now = deps.now ?? Date.now;
    this.#callbacks = deps.callbacks ?? deps.config;
    this.#recorder = new AttemptRecorder(deps.outbox, deps.config, deps.logger, this.#now, this.#callbacks, (id) => this.#dropQueued((c) => c.row.webhook_id === id), deps.onAttempt);
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

  /** Stops claiming, aborts requests in flight, gives back queued rows unsent (leases released) and waits. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#loop.stop();
    this.#dropQueued(() => true);
    while (this.#tasks.size) await Promise.allSettled([...this.#tasks]);
  }

  /** Called when new deliveries exist, so they go out without waiting for the next poll. */
  wake(): void {
    this.#moreDue = true;
    this.#loop.wake();
  }

  /** Sends deliveries already leased to `token` and waits for their outcome (the test call). */
  async sendLeased(token: string): Promise<number> {
    const rows = await deliveries.leasedTo(this.#d.db, token);
    const claimed = await this.#prepare(rows, token);
    await Promise.all(claimed.map((c) => this.#attempt(c, false)));
    return rows.length;
  }

  /** The rows with their webhooks, each webhook opened once; rows of deleted webhooks are left out, scan callbacks kept. */
  async #prepare(rows: DeliveryRow[], token: string): Promise<Claimed[]> {
    const hooks = await webhookRepository.findByIds(this.#d.db, [...new Set(rows.flatMap((r) => (r.webhook_id ? [r.webhook_id] : [])))]);
    const prepared = new Map<string, PreparedWebhook | Error>();
    const now = this.#now();
    for (const [id, hook] of hooks) {
      try {
        prepared.set(id, prepareWebhook(this.#d.box, hook, now));
      } catch (err) {
        prepared.set(id, err instanceof Error ? err : new Error(String(err)));
      }
    }
    return rows.flatMap((row): Claimed[] => {
      if (!row.webhook_id) return [{ row, token, record: null, webhook: null }];
      const record = hooks.get(row.webhook_id);
      return record ? [{ row, token, record, webhook: prepared.get(row.webhook_id)! }] : [];
    });
  }

  /** One claim round; returns how long to sleep (0: a full batch was due, claim again at once). */
  async #round(): Promise<number> {
    const { db, config } = this.#d;
    // Enough is queued to keep every slot busy; a draining queue wakes the loop.
    if (this.#queue.length >= config.concurrency) return config.workerPollIntervalMs;
    const asked = Math.max(config.batchSize, config.concurrency) - this.#queue.length;
    const token = WebhookDeliveryWorker.newToken();
    const rows = await deliveries.claimDue(db, token, this.#now(), config.leaseMs, asked);
    this.#moreDue = rows.length === asked;
    if (rows.length) {
      this.#queue.push(...(await this.#prepare(rows, token)));
      this.#pump();
      return rows.length === asked ? 0 : config.workerPollIntervalMs;
    }
    let wait = config.workerPollIntervalMs;
    try {
      const due = await deliveries.nextDueAt(db, this.#now());
      if (due !== null) wait = Math.max(5, Math.min(wait, due - this.#now()));
    } catch {
      // keep the poll interval
    }
    // Until then a wake-up (new deliveries, a freed slot) starts the next round early.
    return wait;
  }

  /** True while the row's lease covers a whole request plus half the lease's spare time. */
  #startable(row: DeliveryRow): boolean {
    const { leaseMs, requestTimeoutMs } = this.#d.config;
    return Number(row.locked_until) - this.#now() >= requestTimeoutMs + (leaseMs - requestTimeoutMs) / 2;
  }

  /** Starts queued rows while slots are free. */
  #pump(): void {
    const { config } = this.#d;
    const late: Claimed[] = [];
    while (this.#sending < config.concurrency && this.#queue.length && !this.#abort.signal.aborted) {
      const next = this.#queue.shift()!;
      if (!this.#startable(next.row)) {
        late.push(next);
        continue;
      }
      this.#sending += 1;
      this.#track(this.#attempt(next, true));
    }
    if (late.length) this.#release(late);
    if (this.#moreDue && this.#queue.length < config.concurrency) this.#loop.wake();
  }

  #track(task: Promise<void>): void {
    const tracked = task.finally(() => this.#tasks.delete(tracked));
    this.#tasks.add(tracked);
  }

  /** Takes matching rows out of the queue and gives their leases back unsent. */
  #dropQueued(match: (c: Claimed) => boolean): void {
    const dropped = this.#queue.filter(match);
    if (!dropped.length) return;
    this.#queue = this.#queue.filter((c) => !match(c));
    this.#release(dropped);
  }

  #release(items: Claimed[]): void {
    const byToken = new Map<string, string[]>();
    for (const c of items) byToken.set(c.token, [...(byToken.get(c.token) ?? []), c.row.id]);
    for (const [token, ids] of byToken) {
      this.#track(deliveries.releaseMany(this.#d.db, ids, token).then(() => {
        // Claimable again at once, with a fresh lease.
        this.#moreDue = true;
        this.#loop.wake();
      }, (err: unknown) => {
        // Not released: the rows are claimed again when their lease runs out.
        this.#d.logger.warn({ err: errorMessage(err), deliveries: ids.length }, 'could not give back unsent webhook deliveries');
      }));
    }
  }

  /** One attempt of a claimed row: send, free its slot (if it took one), then record (or give the row back when shutting down). */
  async #attempt({ row, token, record, webhook }: Claimed, slot: boolean): Promise<void> {
    const startedAt = this.#now();
    let result: AttemptResult;
    try {
      result = await sendAttempt(this.#d.client, this.#target(row, webhook, startedAt), { messageId: row.scan_id ?? row.id, payload: row.payload }, startedAt, this.#abort.signal);
    } catch (err) {
      // A secret or header blob that cannot be opened (wrong key configured): a failed attempt, not a crash.
      result = { outcome: 'failure', responseCode: null, durationMs: 0, errorCode: 'secret_unavailable', errorMessage: errorMessage(err, 300), responseBody: null };
    } finally {
      if (slot) {
        this.#sending -= 1;
        this.#pump();
      }
    }
    if (result.outcome === 'aborted') {
      // Shutting down: give the row back without spending an attempt.
      await deliveries.release(this.#d.db, row.id, token).catch(() => undefined);
      return;
    }
    await this.#recorder.record({ row, webhook: record, token, result, startedAt });
  }

  /** Where the row goes: its webhook, or its scan's callback (webhook-id = the scan's id, as the spec's callbacks always had). */
  #target(row: DeliveryRow, webhook: PreparedWebhook | Error | null, now: number): SendTarget {
    if (webhook instanceof Error) throw webhook;
    if (webhook) return webhookTarget(webhook, this.#d.config, now);
    return callbackTarget(this.#d.box, row, this.#callbacks, this.#d.config);
  }
}
