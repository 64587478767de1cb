import test from 'ava';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { sharedTestCertificates } from '../_helpers/certificates/certs.ts';
import { createTestApp, type TestApp } from '../_helpers/harness/test-app.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../_helpers/receivers/https-receiver.ts';
import { saysWhatToAdd, specFields } from '../_helpers/spec-clients/spec-fields.ts';

// Webhooks as a spec-only client uses them, with a receiver that checks the signature the
// way the spec tells receivers to (HMAC-SHA256 of the raw body, constant-time compare).
let t0: TestApp;
let receiver: HttpsReceiver;
let token: string;
test.before(async () => {
  const { ca } = await sharedTestCertificates();
  receiver = await startHttpsReceiver();
  t0 = await createTestApp({ outbound: { caCerts: [ca.certPem] } });
  ({ token } = await t0.tenant());
  t0.ctx.background.webhooks.start();
});
test.after.always(async () => {
  await t0?.ctx.background.webhooks.stop();
  await t0?.close();
  await receiver?.close();
});

const call = (method: string, url: string, payload?: unknown) => t0.request(method, url, { token, payload: payload as object });
const SECRET = 'spec-client-signing-secret';

function signedBy(secret: string, body: string, header: unknown): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  const got = Buffer.from(String(header ?? ''));
  return got.length === expected.length && timingSafeEqual(got, expected);
}

test('create → list → update → test → deliveries → delete with the spec\'s fields only', async (t) => {
  const spec = { name: 'SOC', url: `${receiver.origin}/hook`, events: ['finding.new', 'asset.created'], headers: { Authorization: 'Splunk 1234' }, active: true, transform: 'hec', filters: { min_severity: 'high' } };
  saysWhatToAdd(t, await call('POST', '/api/webhooks', { ...spec, secret: 'short' }), 400, 'validation_failed', /secret length must be at least 16/);
  const created = await call('POST', '/api/webhooks', { ...spec, secret: SECRET });
  t.is(created.statusCode, 201, created.raw);
  specFields(t, created.body.data, { id: 'string', name: 'string', url: 'string', events: 'array', active: 'boolean', created_at: 'timestamp' }, 'POST /api/webhooks');
  t.false(created.raw.includes(SECRET), 'the secret is write-only');
  const id = created.body.data.id;

  const list = await call('GET', '/api/webhooks');
  t.is(list.statusCode, 200);
  t.deepEqual(list.body.data.map((w: { id: string }) => w.id), [id]);
  specFields(t, list.body.data[0], { id: 'string', name: 'string', url: 'string', events: 'array', active: 'boolean', created_at: 'timestamp' }, 'webhook list item');

  const updated = await call('PUT', `/api/webhooks/${id}`, { events: ['finding.new', 'asset.created', 'scan.completed'], transform: null });
  t.is(updated.statusCode, 200, updated.raw);

  const tested = await call('POST', `/api/webhooks/${id}/test`);
  t.true(tested.statusCode >= 200 && tested.statusCode < 300, tested.raw);
  const [delivery] = await receiver.waitFor(1, 15_000);
  const body = JSON.parse(delivery!.body);
  specFields(t, body, { id: 'string', event: 'string', timestamp: 'timestamp', data: 'object' }, 'delivery body');
  t.is(body.event, 'webhook.test');
  t.true(signedBy(SECRET, delivery!.body, delivery!.headers['x-svc-signature']));
  t.is(delivery!.headers.authorization, 'Splunk 1234');

  const deliveries = await call('GET', `/api/webhooks/${id}/deliveries`);
  t.is(deliveries.statusCode, 200);
  const record = deliveries.body.data.find((d: { event: string; status: string }) => d.event === 'webhook.test' && d.status === 'delivered');
  specFields(t, record, { id: 'string', event: 'string', status: 'string', response_code: 'integer', duration_ms: 'integer', timestamp: 'timestamp' }, 'delivery record');

  const removed = await call('DELETE', `/api/webhooks/${id}`);
  t.true(removed.statusCode >= 200 && removed.statusCode < 300, removed.raw);
  t.deepEqual((await call('GET', '/api/webhooks')).body.data, []);
});

test('a plain-HTTP url is a 400 saying HTTPS is required', async (t) => {
  saysWhatToAdd(t, await call('POST', '/api/webhooks', { name: 'x', url: `http://127.0.0.1:${receiver.port}/hook`, events: ['finding.new'] }), 400, 'https_required', /https/i);
});
