import type { WebhooksConfig } from '../../config/config-schema.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import type { SendTarget } from './webhook-attempt.ts';
import { signingKey } from './webhook-signer.ts';

/** Sealing context of a scan's callback secret: it only opens for the scan it was written for. */
export const callbackSecretContext = (scanId: string) => `scan:${scanId}:callback-secret`;

/** `scans.callbacks`: the callback's own timeout and retry schedule (the queue's worker is the webhooks'). */
export interface CallbackSettings {
  requestTimeoutMs: number;
  retryScheduleSeconds: readonly number[];
}

/** What a delivery row says about the callback it targets. */
export interface CallbackRowTarget {
  scan_id: string | null;
  target_url: string | null;
  secret_sealed: string | null;
}

/**
 * A scan callback as a send target: the stored final summary sent as is to the scan's
 * callback_url, signed like a webhook delivery with the scan's callback secret (opened
 * here, for this attempt only), no custom headers, no transform. The timeout is the
 * callback's own, at most the webhooks' (the queue's lease is sized for that one).
 * Throws when the secret cannot be opened (wrong key configured): a failed attempt.
 */
export function callbackTarget(box: SecretBox, row: CallbackRowTarget, callbacks: CallbackSettings, config: WebhooksConfig): SendTarget {
  if (!row.scan_id || !row.target_url) throw new Error('The delivery names no scan callback.');
  const secret = row.secret_sealed ? box.open(row.secret_sealed, callbackSecretContext(row.scan_id)) : null;
  return {
    url: row.target_url,
    keys: secret === null ? [] : [signingKey(secret)],
    headers: {},
    render: (payload) => payload,
    signatureHeader: config.signatureHeader,
    timeoutMs: Math.min(callbacks.requestTimeoutMs, config.requestTimeoutMs),
    maxResponseBytes: 1024,
  };
}

/**
 * After a callback attempt failed: the delay before the next one, or null when the
 * schedule is used up (the delivery fails for good). Read at each attempt, as the
 * callback worker this replaced did: schedule[n] after the (n+1)th failure.
 */
export function callbackRetryDelayMs(callbacks: CallbackSettings, attemptsBefore: number): number | null {
  const delay = callbacks.retryScheduleSeconds[attemptsBefore];
  return delay === undefined ? null : delay * 1000;
}
