import type { Db } from '../db/create-db.ts';
import type { Logger } from '../logger.ts';
import { OutboundError } from '../outbound/outbound-error.ts';
import type { OutboundHttpClient } from '../outbound/http-client.ts';
import { PollLoop } from '../work/poll-loop.ts';
import { claimToken } from '../work/instance-id.ts';
import { errorMessage } from '../work/coerce-error.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { callbackSecretContext } from './scan-service.ts';
import { signatureHeaders } from '../webhooks/webhook-signer.ts';
import { scanCallbackRepository as callbacks, type CallbackRow } from './scan-callback-repository.ts';

/** Callbacks sent per round at most. */
const ROUND = 10;

export interface CallbackWorkerDeps {
  db: Db;
  client: OutboundHttpClient;
  box: SecretBox;
  logger: Logger;
  config: { pollIntervalMs: number; leaseMs: number; requestTimeoutMs: number; retryScheduleSeconds: number[] };
  signatureHeader: string;
}

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

  /** Sends what is due now, one claim at a time (each lease starts as its send does); returns how many. */
  async runOnce(): Promise<number> {
    const { db, config } = this.#d;
    const now = Date.now();
    const sent = new Set<string>();
    while (sent.size < ROUND) {
      const token = claimToken('c');
      const row = await callbacks.claimNext(db, token, now, config.leaseMs);
      if (!row) break;
      if (sent.has(row.scan_id)) {
        // Retried with no delay: it waits for the next round, as every retry does.
        await callbacks.release(db, row.scan_id, token);
        break;
      }
      sent.add(row.scan_id);
      await this.#send(row, token);
    }
    return sent.size;
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
      error = err instanceof OutboundError ? `${err.code}: ${errorMessage(err)}` : 'request failed';
    }
    const attempts = Number(row.attempts) + 1;
    const base = { attempts, response_code: code, last_error: error?.slice(0, 300) ?? null, updated_at: Date.now() };
    if (!error) {
      await callbacks.finish(db, row.scan_id, token, { ...base, status: 'delivered' });
      return;
    }
    const delay = config.retryScheduleSeconds[attempts - 1];
    if (delay === undefined) {
      await callbacks.finish(db, row.scan_id, token, { ...base, status: 'failed' });
      this.#d.logger.warn({ scan_id: row.scan_id, attempts, error }, 'scan callback failed for good');
      return;
    }
    await callbacks.finish(db, row.scan_id, token, { ...base, next_attempt_at: Date.now() + delay * 1000 });
  }
}
