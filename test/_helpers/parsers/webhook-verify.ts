import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * A receiver's signature checks written independently of core/webhooks/webhook-signer.ts
 * (as a customer would, from the README), so tests do not check the signer with itself.
 */
function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** `X-SVC-Signature: sha256=<hex HMAC-SHA256(secret as UTF-8, raw body)>`. */
export function verifyHexSignature(secret: string, body: string, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false;
  const expected = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return equal(expected, header);
}

/** Standard Webhooks: any `v1,<b64>` entry of webhook-signature over `id.timestamp.body`. */
export function verifyStandardWebhook(secret: string, body: string, headers: IncomingHttpHeaders): boolean {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const sig = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof ts !== 'string' || typeof sig !== 'string') return false;
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret);
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64');
  return sig.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    return version === 'v1' && value !== undefined && equal(value, expected);
  });
}
