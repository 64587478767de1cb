import type { WebhooksConfig } from '../../config/config-schema.ts';
import { OutboundError } from '../outbound/outbound-error.ts';
import type { OutboundHttpClient } from '../outbound/http-client.ts';
import type { WebhookRecord } from './webhook-repository.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { invalidHeader } from './header-value.ts';
import { renderBody, type WebhookBody } from './webhook-payload.ts';
import { signedHeaders, signingKey, type SigningKey } from './webhook-signer.ts';

export interface AttemptResult {
  outcome: 'success' | 'failure' | 'aborted';
  responseCode: number | null;
  durationMs: number;
  errorCode: string | null;
  errorMessage: string | null;
  responseBody: string | null;
}

/** Sealing contexts: a sealed value only opens on the row and field it was written for. */
export const secretContext = (webhookId: string) => `webhook:${webhookId}:secret`;
export const headersContext = (webhookId: string) => `webhook:${webhookId}:headers`;

/**
 * A webhook ready to send to: its sealed secrets and custom headers opened and its
 * signing keys derived once for a whole claimed batch, instead of once per attempt
 * (two AES-GCM opens and a base64 decode each). Lives only as long as the batch.
 */
export interface PreparedWebhook {
  record: WebhookRecord;
  current: SigningKey | null;
  previous: { key: SigningKey; expiresAt: number } | null;
  headers: Record<string, string>;
}

/** Opens what the webhook needs for sending at `now`; throws when a sealed value cannot be opened (wrong key configured). */
export function prepareWebhook(box: SecretBox, webhook: WebhookRecord, now: number): PreparedWebhook {
  const open = (sealed: string) => box.open(sealed, secretContext(webhook.id));
  return {
    record: webhook,
    current: webhook.secretSealed ? signingKey(open(webhook.secretSealed)) : null,
    previous: webhook.previousSecretSealed && (webhook.previousSecretExpiresAt ?? 0) > now
      ? { key: signingKey(open(webhook.previousSecretSealed)), expiresAt: webhook.previousSecretExpiresAt! }
      : null,
    headers: webhook.headersSealed ? (JSON.parse(box.open(webhook.headersSealed, headersContext(webhook.id))) as Record<string, string>) : {},
  };
}

const failure = (errorCode: string, errorMessage: string, durationMs = 0): AttemptResult => ({
  outcome: 'failure', responseCode: null, durationMs, errorCode, errorMessage: errorMessage.slice(0, 300), responseBody: null,
});

/**
 * Where and how one attempt goes: a webhook's URL, keys, custom headers and transform, or
 * a scan callback's (scan-callback-target.ts). The signing and sending are the same.
 */
export interface SendTarget {
  url: string;
  /** Current key first, then a still-valid previous one; none for an unsigned target. */
  keys: SigningKey[];
  /** Custom headers (webhooks only); the content type and signatures are added over them. */
  headers: Record<string, string>;
  /** The exact bytes sent for a stored payload. */
  render(payload: string): string;
  /** Name of the spec's hex signature header (`webhooks.signatureHeader`). */
  signatureHeader: string;
  timeoutMs: number;
  maxResponseBytes: number;
}

/** A prepared webhook as a send target at `now`. */
export function webhookTarget(webhook: PreparedWebhook, config: WebhooksConfig, now: number): SendTarget {
  const { record } = webhook;
  const keys = webhook.current ? [webhook.current] : [];
  if (webhook.current && webhook.previous && webhook.previous.expiresAt > now) keys.push(webhook.previous.key);
  return {
    url: record.url, keys, headers: webhook.headers,
    render: (payload) => renderBody(JSON.parse(payload) as WebhookBody, record.transform, record.transformOptions),
    signatureHeader: config.signatureHeader, timeoutMs: config.requestTimeoutMs, maxResponseBytes: config.responseBodyMaxBytes,
  };
}

/**
 * One HTTP attempt of one delivery: render the body (transform), sign the exact bytes
 * once (`messageId` is the `webhook-id` header), add custom headers, POST through the
 * shared outbound client (pooled keep-alive connections per origin, SSRF guard at
 * connect). Any 2xx is a success; any other status or no complete answer within the
 * timeout is a failure, and a failure before any response says in words what failed
 * (DNS, TLS, refused, timeout, an invalid header). Nothing is written here; the worker
 * records the result.
 */
export async function sendAttempt(
  client: OutboundHttpClient,
  target: SendTarget,
  delivery: { messageId: string; payload: string },
  now: number,
  signal?: AbortSignal,
): Promise<AttemptResult> {
  // Stored before values were checked at save time: fail with the reason rather than an opaque client error.
  const bad = invalidHeader(target.headers);
  if (bad) return failure('invalid_header', `Custom header ${bad.name} is not valid HTTP header text: it ${bad.problem}. Update the webhook's headers.`);
  const body = target.render(delivery.payload);
  const headers: Record<string, string> = {
    ...target.headers,
    'content-type': 'application/json',
    ...signedHeaders({ keys: target.keys, messageId: delivery.messageId, timestampSeconds: Math.floor(now / 1000), body, headerName: target.signatureHeader }),
  };
  const started = Date.now();
  try {
    const res = await client.request({ method: 'POST', url: target.url, headers, body, timeoutMs: target.timeoutMs, signal, maxResponseBytes: target.maxResponseBytes });
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    return {
      outcome: ok ? 'success' : 'failure',
      responseCode: res.statusCode,
      durationMs: res.durationMs,
      errorCode: ok ? null : 'http_status',
      errorMessage: ok ? null : `The endpoint answered ${res.statusCode}.`,
      responseBody: res.body,
    };
  } catch (err) {
    const e = err instanceof OutboundError ? err : new OutboundError('request_failed', `The request failed: ${(err as Error)?.message ?? String(err)}`);
    if (e.code === 'aborted') return { ...failure('aborted', e.message, Date.now() - started), outcome: 'aborted' };
    return failure(e.code, e.message, Date.now() - started);
  }
}

/** One attempt for a webhook not prepared beforehand (the test call's single delivery). */
export async function attemptDelivery(
  deps: { client: OutboundHttpClient; box: SecretBox; config: WebhooksConfig },
  webhook: WebhookRecord,
  delivery: { id: string; payload: string },
  now: number,
  signal?: AbortSignal,
): Promise<AttemptResult> {
  return sendAttempt(deps.client, webhookTarget(prepareWebhook(deps.box, webhook, now), deps.config, now), { messageId: delivery.id, payload: delivery.payload }, now, signal);
}
