import type { Db } from '../db/create-db.ts';
import { INSTANCE_ID } from '../events/event-consumer.ts';
import type { Logger } from '../logger.ts';
import { OutboundError } from '../outbound/outbound-error.ts';
import type { OutboundHttpClient } from '../outbound/http-client.ts';
import { PollLoop } from '../work/poll-loop.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { callbackSecretContext } from './scan-service.ts';
import { signatureHeaders } from '../webhooks/webhook-signer.ts';

interface CallbackRow {
  scan_id: string;
  url: string;
  secret_sealed: string | null;
  payload: string;
  attempts: number;
}

export interface CallbackWorkerDeps {
  db: Db;
  client: OutboundHttpClient;
  box: SecretBox;
  logger: Logger;
  config: { pollIntervalMs: number; leaseMs: number; requestTimeoutMs: number; retryScheduleSeconds: number[] };
  signatureHeader: string;
}

let seq = 0;

/**
 * Delivers scan callbacks: a signed POST of the final scan summary to the scan's
 * callback_url through the shared outbound client (same SSRF rules as webhooks),
 * signed like a webhook delivery (spec hex header + Standard Webhooks headers, keyed
 * with the scan's callback secret, webhook-id = scan id). Rows are leased like every
 * background job; a failure is retried on the configured schedule, then `failed`.
 */
export class ScanCallbackWorker {
  readonly #d: CallbackWorkerDeps;
  readonly #loop: PollLoop;
  readonly #abort = new AbortController();

  constructor(deps: CallbackWorkerDeps) {
    this.#d = deps;
    this.#loop = new PollLoop({
      round: async () => void (await this.runOnce()),
      intervalMs: deps.config.pollIntervalMs,
      onError: (err) => deps.logger.error({ err: err.message }, 'scan callback round failed'),
    });
  }

  start(): void {
    this.#loop.start();
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#loop.stop();
  }

  async runOnce(): Promise<number> {
    const { db, config } = this.#d;
    const now = Date.now();
    const due = (await db('scan_callbacks').where('status', 'pending').where('next_attempt_at', '<=', now).where('locked_until', '<', now).orderBy('next_attempt_at').limit(10)) as CallbackRow[];
    let sent = 0;
    for (const row of due) {
      const token = `${INSTANCE_ID}#c${++seq}`;
      const claimed = await db('scan_callbacks').where({ scan_id: row.scan_id, status: 'pending' }).where('locked_until', '<', now).update({ locked_by: token, locked_until: now + config.leaseMs });
      if (!claimed) continue;
      await this.#send(row, token);
      sent += 1;
    }
    return sent;
  }

  async #send(row: CallbackRow, token: string): Promise<void> {
    const { db, client, box, config } = this.#d;
    const now = Date.now();
    const secrets = row.secret_sealed ? [box.open(row.secret_sealed, callbackSecretContext(row.scan_id))] : [];
    const headers = { 'content-type': 'application/json', ...signatureHeaders({ secrets, messageId: row.scan_id, timestampSeconds: Math.floor(now / 1000), body: row.payload, headerName: this.#d.signatureHeader }) };
    let code: number | null = null;
    let error: string | null = null;
    try {
      const res = await client.request({ method: 'POST', url: row.url, headers, body: row.payload, timeoutMs: config.requestTimeoutMs, signal: this.#abort.signal, maxResponseBytes: 1024 });
      code = res.statusCode;
      if (code < 200 || code >= 300) error = `The endpoint answered ${code}.`;
    } catch (err) {
      error = err instanceof OutboundError ? `${err.code}: ${err.message}` : 'request failed';
    }
    const attempts = Number(row.attempts) + 1;
    const base = { attempts, response_code: code, last_error: error?.slice(0, 300) ?? null, locked_by: null, locked_until: 0, updated_at: Date.now() };
    if (!error) {
      await db('scan_callbacks').where({ scan_id: row.scan_id, locked_by: token }).update({ ...base, status: 'delivered' });
      return;
    }
    const delay = config.retryScheduleSeconds[attempts - 1];
    if (delay === undefined) {
      await db('scan_callbacks').where({ scan_id: row.scan_id, locked_by: token }).update({ ...base, status: 'failed' });
      this.#d.logger.warn({ scan_id: row.scan_id, attempts, error }, 'scan callback failed for good');
      return;
    }
    await db('scan_callbacks').where({ scan_id: row.scan_id, locked_by: token }).update({ ...base, next_attempt_at: Date.now() + delay * 1000 });
  }
}
