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

/** The two HMAC keys of one secret, derived once per webhook rather than once per attempt. */
export interface SigningKey {
  /** The secret's UTF-8 bytes: the spec's hex header. */
  hex: Buffer;
  /** Standard Webhooks: the decoded `whsec_` part, else the UTF-8 bytes. */
  standard: Buffer;
}

export function signingKey(secret: string): SigningKey {
  return { hex: Buffer.from(secret, 'utf8'), standard: standardWebhooksKey(secret) };
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
  return signedHeaders({ ...input, keys: input.secrets.map(signingKey) });
}

/** The same headers from keys derived beforehand (current first, then a still-valid previous one). */
export function signedHeaders(input: Omit<SigningInput, 'secrets'> & { keys: SigningKey[] }): Record<string, string> {
  const headers: Record<string, string> = {
    'webhook-id': input.messageId,
    'webhook-timestamp': String(input.timestampSeconds),
  };
  const [current, previous] = input.keys;
  if (current === undefined) return headers;
  const hex = (key: SigningKey) => `sha256=${createHmac('sha256', key.hex).update(input.body).digest('hex')}`;
  headers[input.headerName] = hex(current);
  if (previous !== undefined) headers[`${input.headerName}-Previous`] = hex(previous);
  const prefix = `${input.messageId}.${input.timestampSeconds}.`;
  headers['webhook-signature'] = input.keys
    .map((key) => `v1,${createHmac('sha256', key.standard).update(prefix).update(input.body).digest('base64')}`)
    .join(' ');
  return headers;
}
