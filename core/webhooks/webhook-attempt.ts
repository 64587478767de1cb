import type { WebhooksConfig } from '../../config/config-schema.ts';
import { OutboundError } from '../outbound/outbound-error.ts';
import type { OutboundHttpClient } from '../outbound/http-client.ts';
import type { WebhookRecord } from './webhook-repository.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { renderBody, type WebhookBody } from './webhook-payload.ts';
import { signatureHeaders } from './webhook-signer.ts';

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

/** The secrets that sign now: the current one, then the previous one while its grace period lasts. */
export function signingSecrets(box: SecretBox, webhook: WebhookRecord, now: number): string[] {
  const out: string[] = [];
  if (webhook.secretSealed) out.push(box.open(webhook.secretSealed, secretContext(webhook.id)));
  if (webhook.previousSecretSealed && (webhook.previousSecretExpiresAt ?? 0) > now) {
    out.push(box.open(webhook.previousSecretSealed, secretContext(webhook.id)));
  }
  return out;
}

/**
 * One HTTP attempt of one delivery: render the body (transform), sign the exact bytes,
 * add custom headers, POST through the shared outbound client. Any 2xx is a success;
 * any other status or no complete answer within the timeout is a failure. Nothing is
 * written here; the worker records the result.
 */
export async function attemptDelivery(
  deps: { client: OutboundHttpClient; box: SecretBox; config: WebhooksConfig },
  webhook: WebhookRecord,
  delivery: { id: string; payload: string },
  now: number,
  signal?: AbortSignal,
): Promise<AttemptResult> {
  const { client, box, config } = deps;
  const body = renderBody(JSON.parse(delivery.payload) as WebhookBody, webhook.transform, webhook.transformOptions);
  const custom = webhook.headersSealed ? (JSON.parse(box.open(webhook.headersSealed, headersContext(webhook.id))) as Record<string, string>) : {};
  const headers: Record<string, string> = {
    ...custom,
    'content-type': 'application/json',
    ...signatureHeaders({
      secrets: signingSecrets(box, webhook, now),
      messageId: delivery.id,
      timestampSeconds: Math.floor(now / 1000),
      body,
      headerName: config.signatureHeader,
    }),
  };
  const started = Date.now();
  try {
    const res = await client.request({
      method: 'POST',
      url: webhook.url,
      headers,
      body,
      timeoutMs: config.requestTimeoutMs,
      signal,
      maxResponseBytes: config.responseBodyMaxBytes,
    });
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
    const e = err instanceof OutboundError ? err : new OutboundError('request_failed', 'The request failed.');
    return {
      outcome: e.code === 'aborted' ? 'aborted' : 'failure',
      responseCode: null,
      durationMs: Date.now() - started,
      errorCode: e.code,
      errorMessage: e.message.slice(0, 300),
      responseBody: null,
    };
  }
}
