import { createHmac } from 'node:crypto';

/**
 * The two signature schemes every delivery carries when its webhook has a secret.
 *
 * 1. The spec's header (`X-SVC-Signature` by default): `sha256=` + lowercase hex
 *    HMAC-SHA256 of the raw body, keyed with the secret's UTF-8 bytes (the GitHub
 *    `X-Hub-Signature-256` construction).
 * 2. Standard Webhooks v1: `webhook-signature: v1,<base64 HMAC-SHA256>` over
 *    `<webhook-id>.<webhook-timestamp>.<raw body>`. Its key is the base64-decoded part
 *    of a `whsec_…` secret (as the Standard Webhooks libraries expect), otherwise the
 *    secret's UTF-8 bytes. The timestamp gives receivers replay protection.
 *
 * During a secret rotation both the new and the old secret sign: the Standard Webhooks
 * header lists both (space-separated, as its spec provides for rotation), and the
 * spec's header keeps the new signature while `<header>-Previous` carries the old one.
 */
export function hexBodySignature(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')}`;
}

export function standardWebhooksKey(secret: string): Buffer {
  if (secret.startsWith('whsec_')) {
    const decoded = Buffer.from(secret.slice('whsec_'.length), 'base64');
    if (decoded.length > 0) return decoded;
  }
  return Buffer.from(secret, 'utf8');
}

export function standardWebhooksSignature(secret: string, messageId: string, timestampSeconds: number, body: string | Buffer): string {
  const mac = createHmac('sha256', standardWebhooksKey(secret));
  mac.update(`${messageId}.${timestampSeconds}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

export interface SigningInput {
  /** Current secret first, then a still-valid previous one; empty for an unsigned webhook. */
  secrets: string[];
  messageId: string;
  timestampSeconds: number;
  body: string;
  /** Name of the spec's hex signature header. */
  headerName: string;
}

/** The identification and signature headers of one attempt. */
export function signatureHeaders(input: SigningInput): Record<string, string> {
  const headers: Record<string, string> = {
    'webhook-id': input.messageId,
    'webhook-timestamp': String(input.timestampSeconds),
  };
  const [current, previous] = input.secrets;
  if (current === undefined) return headers;
  headers[input.headerName] = hexBodySignature(current, input.body);
  if (previous !== undefined) headers[`${input.headerName}-Previous`] = hexBodySignature(previous, input.body);
  headers['webhook-signature'] = input.secrets
    .map((s) => standardWebhooksSignature(s, input.messageId, input.timestampSeconds, input.body))
    .join(' ');
  return headers;
}
