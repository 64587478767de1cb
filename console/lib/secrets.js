// @ts-check

/**
 * A new random secret made in the browser: `whsec_` and 32 random bytes in base64, the
 * Standard Webhooks form (docs/design/webhooks.md). Made here, not by the server, because
 * the API takes the new secret in the rotate request and never answers it back.
 */
export function newWebhookSecret() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return `whsec_${btoa(binary)}`;
}
