import test from 'ava';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../../config/load-config.ts';
import { OutboundHttpClient } from '../../../core/outbound/http-client.ts';
import type { WebhookRecord } from '../../../core/webhooks/webhook-repository.ts';
import { SecretBox } from '../../../core/secrets/secret-box.ts';
import { attemptDelivery, headersContext, secretContext } from '../../../core/webhooks/webhook-attempt.ts';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';
import { verifyHexSignature, verifyStandardWebhook } from '../../_helpers/parsers/webhook-verify.ts';

let receiver: HttpsReceiver;
let client: OutboundHttpClient;
const box = new SecretBox(randomBytes(32));
const config = { ...loadConfig({ env: { NODE_ENV: 'test' } }).webhooks, requestTimeoutMs: 30_000, responseBodyMaxBytes: 8 };
// Only the timeout case uses a short limit (a loaded machine can take longer than that to answer).
const impatient = { ...config, requestTimeoutMs: 500 };

test.before(async () => {
  const { ca } = await sharedTestCertificates();
  receiver = await startHttpsReceiver();
  // One policy for the whole file (tests run concurrently): the path says how to answer.
  receiver.respond((req) =>
    req.path === '/ok' ? { status: 201, body: 'created, thanks' } : req.path === '/slow' ? { status: 200, delayMs: 5000 } : req.path === '/moved' ? { status: 301 } : { status: 500 },
  );
  client = new OutboundHttpClient({ requireHttps: true, allowPrivateCidrs: ['127.0.0.0/8'], caCerts: [ca.certPem], connectTimeoutMs: 5000, defaultTimeoutMs: 5000, maxConnectionsPerOrigin: 4, maxResponseBytes: 1024, userAgent: 't' });
});

test.after.always(async () => {
  await client?.close();
  await receiver?.close();
});

function hook(path: string, extra: Partial<WebhookRecord> = {}): WebhookRecord {
  return {
    id: 'whk_01J00000000000000000000000', tenantId: 'ten_x', name: 'h', url: `${receiver.origin}${path}`, events: ['*'], filters: {}, transform: null,
    transformOptions: {}, secretSealed: null, previousSecretSealed: null, previousSecretExpiresAt: null, headersSealed: null, headerNames: [],
    active: true, disabledReason: null, disabledAt: null, failingSince: null, createdAt: 0, updatedAt: 0, ...extra,
  };
}

const delivery = { id: 'dlv_01J00000000000000000000000', payload: JSON.stringify({ id: '7', event: 'finding.new', timestamp: '2026-01-01T00:00:00.000Z', data: { a: 1 } }) };

test('a 2xx is a success; the body is signed as sent; custom headers are opened and sent; the response is truncated', async (t) => {
  const w = hook('/ok', { secretSealed: box.seal('s3cret-s3cret-s3cret', secretContext('whk_01J00000000000000000000000')), headersSealed: box.seal(JSON.stringify({ 'X-Token': 'abc' }), headersContext('whk_01J00000000000000000000000')) });
  const result = await attemptDelivery({ client, box, config }, w, delivery, Date.now());
  t.like(result, { outcome: 'success', responseCode: 201, errorCode: null, responseBody: 'created,' });
  const req = receiver.requests.find((r) => r.path === '/ok')!;
  t.is(req.body, delivery.payload);
  t.is(req.headers['x-token'], 'abc');
  t.true(verifyHexSignature('s3cret-s3cret-s3cret', req.body, req.headers['x-svc-signature']));
  t.true(verifyStandardWebhook('s3cret-s3cret-s3cret', req.body, req.headers));
});

test('no answer within requestTimeoutMs is a failure with error timeout and no response code', async (t) => {
  const result = await attemptDelivery({ client, box, config: impatient }, hook('/slow'), delivery, Date.now());
  t.like(result, { outcome: 'failure', responseCode: null, errorCode: 'timeout', responseBody: null });
});

test('a non-2xx (including a redirect) is a failure with its status; a refused destination is a failure too', async (t) => {
  t.like(await attemptDelivery({ client, box, config }, hook('/moved'), delivery, Date.now()), { outcome: 'failure', responseCode: 301, errorCode: 'http_status' });
  const refused = await attemptDelivery({ client, box, config }, { ...hook('/x'), url: 'https://169.254.169.254/' }, delivery, Date.now());
  t.like(refused, { outcome: 'failure', responseCode: null, errorCode: 'destination_refused' });
});
