import test from 'ava';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { verifyHexSignature, verifyStandardWebhook } from '../../_helpers/parsers/webhook-verify.ts';

const SCHEDULE = [0.2, 0.3, 0.4];
let t0: TestApp;
const receivers: HttpsReceiver[] = [];

test.before(async () => {
  const { ca } = await sharedTestCertificates();
  t0 = await createTestApp({
    outbound: { caCerts: [ca.certPem] },
    webhooks: { retryScheduleSeconds: SCHEDULE, requestTimeoutMs: 30000, leaseMs: 60000, autoDisableAfterSeconds: 0, responseBodyMaxBytes: 100 },
  });
  await t0.app.start();
});

test.after.always(async () => {
  await t0?.close();
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(): Promise<HttpsReceiver> {
  const r = await startHttpsReceiver();
  receivers.push(r);
  return r;
}

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const VECTOR_HIGH = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N'; // 7.5 high
const VECTOR_LOW = 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N'; // 3.1 low

async function webhook(token: string, r: HttpsReceiver, extra: Record<string, unknown> = {}) {
  const res = await t0.request('POST', '/api/webhooks', { token, payload: { name: 'hook', url: `${r.origin}/hook`, events: ['finding.new'], ...extra } });
  if (res.statusCode !== 201) throw new Error(res.raw);
  return res.body.data as { id: string };
}

async function asset(token: string, name: string, tags: string[] = []) {
  const res = await t0.request('POST', '/api/assets', { token, payload: { name, type: 'domain', tags } });
  if (res.statusCode !== 201) throw new Error(res.raw);
  return res.body.data as { id: string; name: string; type: string };
}

async function finding(token: string, assetId: string, title: string, vector = VECTOR_HIGH) {
  const res = await t0.request('POST', '/api/findings', { token, payload: { asset_id: assetId, title, cvss_vector: vector } });
  if (res.statusCode !== 201) throw new Error(res.raw);
  return res.body.data as { id: string };
}

async function deliveries(token: string, hookId: string) {
  return (await t0.request('GET', `/api/webhooks/${hookId}/deliveries?per_page=100`, { token })).body.data as Array<Record<string, any>>;
}

test('finding.new arrives signed (spec header + Standard Webhooks) with custom headers and the spec body', async (t) => {
  const { token } = await t0.tenant();
  const r = await receiver();
  const hook = await webhook(token, r, { secret: SECRET, headers: { Authorization: 'Splunk abc-123' } });
  const a = await asset(token, 'shop.example.com');
  const f = await finding(token, a.id, 'SQL injection');
  const [req] = await r.waitFor(1);
  const body = JSON.parse(req!.body);
  t.deepEqual(Object.keys(body), ['id', 'event', 'timestamp', 'data']);
  t.is(body.event, 'finding.new');
  t.truthy(Date.parse(body.timestamp));
  t.deepEqual(body.data, { finding_id: f.id, title: 'SQL injection', severity: 'high', cvss: 7.5, asset: { id: a.id, name: a.name, type: 'domain' }, scan_id: null });
  t.true(verifyHexSignature(SECRET, req!.body, req!.headers['x-svc-signature']));
  t.true(verifyStandardWebhook(SECRET, req!.body, req!.headers));
  t.false(verifyHexSignature('wrong-secret-1234567', req!.body, req!.headers['x-svc-signature']));
  t.is(req!.headers.authorization, 'Splunk abc-123');
  t.is(req!.headers['content-type'], 'application/json');
  t.is(req!.method, 'POST');
  const list = await eventually(async () => {
    const l = await deliveries(token, hook.id);
    return l[0]?.status === 'delivered' && l;
  });
  t.like(list[0], { event: 'finding.new', event_id: body.id, status: 'delivered', response_code: 200, attempts: 1 });
  t.is(req!.headers['webhook-id'], list[0]!.id);
  t.true(Number.isInteger(list[0]!.duration_ms));
});

test('filters: min_severity, asset_tags, exclude and category patterns', async (t) => {
  const { token } = await t0.tenant();
  const [rSev, rTag, rPat] = [await receiver(), await receiver(), await receiver()];
  await webhook(token, rSev, { filters: { min_severity: 'high' } });
  await webhook(token, rTag, { filters: { asset_tags: ['prod'] } });
  await webhook(token, rPat, { events: ['finding.*'], filters: { exclude: ['finding.status_changed'] } });
  const prod = await asset(token, 'prod.example.com', ['prod', 'web']);
  const dev = await asset(token, 'dev.example.com', ['dev']);
  const f1 = await finding(token, prod.id, 'high on prod', VECTOR_HIGH);
  const f2 = await finding(token, dev.id, 'low on dev', VECTOR_LOW);
  const f3 = await finding(token, dev.id, 'high on dev', VECTOR_HIGH);
  t.is((await t0.request('PUT', `/api/findings/${f1.id}/status`, { token, payload: { status: 'confirmed' } })).statusCode, 200);
  const idsOf = (r: HttpsReceiver) => r.requests.map((q) => JSON.parse(q.body).data.finding_id as string).sort();
  await rPat.waitFor(3);
  await rSev.waitFor(2);
  await rTag.waitFor(1);
  // A marker event after everything: once it arrives, nothing earlier is still on its way.
  const marker = await finding(token, prod.id, 'marker', VECTOR_HIGH);
  await Promise.all([rSev.waitFor(3), rTag.waitFor(2), rPat.waitFor(4)]);
  t.deepEqual(idsOf(rSev), [f1.id, f3.id, marker.id].sort());
  t.deepEqual(idsOf(rTag), [f1.id, marker.id].sort());
  t.deepEqual(idsOf(rPat), [f1.id, f2.id, f3.id, marker.id].sort());
  t.false(rPat.requests.some((q) => JSON.parse(q.body).event === 'finding.status_changed'));
});

test("tenant isolation: a tenant's webhooks never receive another tenant's events", async (t) => {
  const a = await t0.tenant();
  const b = await t0.tenant();
  const [ra, rb] = [await receiver(), await receiver()];
  const hookA = await webhook(a.token, ra, { events: ['*'] });
  const hookB = await webhook(b.token, rb, { events: ['*'] });
  const assetA = await asset(a.token, 'a.example.com');
  await finding(a.token, assetA.id, 'only for A');
  await ra.waitFor(2); // asset.created + finding.new
  const assetB = await asset(b.token, 'b.example.com');
  await rb.waitFor(1);
  t.true(ra.requests.every((q) => !q.body.includes(assetB.id)));
  t.true(rb.requests.every((q) => !q.body.includes(assetA.id)));
  t.deepEqual(rb.requests.map((q) => JSON.parse(q.body).event), ['asset.created']);
  t.is((await t0.request('GET', `/api/webhooks/${hookA.id}/deliveries`, { token: b.token })).statusCode, 404);
  t.is((await deliveries(b.token, hookB.id)).length, 1);
});

test('failed attempts are retried on the schedule and each attempt is recorded', async (t) => {
  const { token } = await t0.tenant();
  const r = await receiver();
  r.respond((_req, i) => (i < 2 ? { status: 500, body: `E${i}`.padEnd(300, '!') } : { status: 204 }));
  const hook = await webhook(token, r);
  const a = await asset(token, 'retry.example.com');
  await finding(token, a.id, 'retry me');
  const [delivery] = await eventually(async () => {
    const l = await deliveries(token, hook.id);
    return l[0]?.status === 'delivered' && l;
  });
  t.like(delivery, { attempts: 3, response_code: 204, status: 'delivered' });
  const detail = (await t0.request('GET', `/api/webhooks/${hook.id}/deliveries/${delivery!.id}`, { token })).body.data;
  t.deepEqual(detail.attempt_log.map((x: any) => [x.attempt, x.outcome, x.response_code]), [[1, 'failure', 500], [2, 'failure', 500], [3, 'success', 204]]);
  t.is(detail.attempt_log[0].response_body, 'E0'.padEnd(100, '!'), 'the response body is kept truncated');
  const at = detail.attempt_log.map((x: any) => Date.parse(x.timestamp));
  t.true(at[1] - at[0] >= SCHEDULE[0]! * 1000, 'attempt 2 not before its due time');
  t.true(at[2] - at[1] >= SCHEDULE[1]! * 1000, 'attempt 3 not before its due time');
  t.is(new Set(r.requests.map((q) => q.headers['webhook-id'])).size, 1, 'webhook-id is stable across retries');
});

test('after the 4th failure the delivery is failed; a manual retry and recover resend it', async (t) => {
  const { token } = await t0.tenant();
  const r = await receiver();
  let healthy = false;
  r.respond(() => (healthy ? { status: 200 } : { status: 503 }));
  const hook = await webhook(token, r);
  const a = await asset(token, 'down.example.com');
  await finding(token, a.id, 'one');
  await finding(token, a.id, 'two');
  const failed = await eventually(async () => {
    const l = await deliveries(token, hook.id);
    return l.length === 2 && l.every((d) => d.status === 'failed') && l;
  });
  t.true(failed.every((d) => d.attempts === 4 && d.response_code === 503 && d.next_attempt_at === null));
  t.is(r.requests.length, 8);
  const bad = await t0.request('POST', `/api/webhooks/${hook.id}/deliveries/${failed[0]!.id}/retry`, { token });
  t.is(bad.statusCode, 200);
  t.is(bad.body.data.status, 'pending');
  healthy = true;
  await eventually(async () => (await deliveries(token, hook.id)).find((d) => d.id === failed[0]!.id)?.status === 'delivered');
  const recovered = await t0.request('POST', `/api/webhooks/${hook.id}/recover`, { token, payload: { since: new Date(Date.now() - 60_000).toISOString() } });
  t.deepEqual(recovered.body.data, { requeued: 1 });
  await eventually(async () => (await deliveries(token, hook.id)).every((d) => d.status === 'delivered'));
  t.is(r.requests.length, 10);
});

test('transforms: hec envelope and search_index document', async (t) => {
  const { token } = await t0.tenant();
  const [rh, rs] = [await receiver(), await receiver()];
  await webhook(token, rh, { transform: 'hec', transform_options: { index: 'security' }, secret: SECRET });
  await webhook(token, rs, { transform: 'search_index' });
  const a = await asset(token, 'transform.example.com');
  const f = await finding(token, a.id, 'transformed');
  const [hec] = await rh.waitFor(1);
  const [doc] = await rs.waitFor(1);
  const envelope = JSON.parse(hec!.body);
  t.deepEqual(Object.keys(envelope).sort(), ['event', 'index', 'source', 'sourcetype', 'time']);
  t.like(envelope, { index: 'security', source: 'rampart', sourcetype: 'rampart:event', event: { event: 'finding.new', data: { finding_id: f.id } } });
  t.is(envelope.time, Date.parse(envelope.event.timestamp) / 1000);
  t.true(verifyHexSignature(SECRET, hec!.body, hec!.headers['x-svc-signature']), 'the signature covers the bytes sent');
  const d = JSON.parse(doc!.body);
  t.like(d, { event: { kind: 'finding.new', dataset: 'rampart.events' }, data: { finding_id: f.id } });
  t.truthy(Date.parse(d['@timestamp']));
});

test('secret rotation: both signatures during the grace period', async (t) => {
  const { token } = await t0.tenant();
  const r = await receiver();
  const hook = await webhook(token, r, { secret: 'old-secret-abcdefghijkl' });
  const rotated = await t0.request('POST', `/api/webhooks/${hook.id}/rotate-secret`, { token, payload: { secret: 'new-secret-abcdefghijkl', grace_period_seconds: 600 } });
  t.is(rotated.statusCode, 200, rotated.raw);
  const res = await t0.request('POST', `/api/webhooks/${hook.id}/test`, { token });
  t.is(res.body.data?.status, 'delivered', res.raw);
  const [req] = r.requests;
  t.true(verifyStandardWebhook('new-secret-abcdefghijkl', req!.body, req!.headers));
  t.true(verifyStandardWebhook('old-secret-abcdefghijkl', req!.body, req!.headers));
  t.true(verifyHexSignature('new-secret-abcdefghijkl', req!.body, req!.headers['x-svc-signature']));
  t.true(verifyHexSignature('old-secret-abcdefghijkl', req!.body, req!.headers['x-svc-signature-previous']));
  const rerotated = await t0.request('POST', `/api/webhooks/${hook.id}/rotate-secret`, { token, payload: { secret: 'newest-secret-abcdefghi', grace_period_seconds: 0 } });
  t.is(rerotated.statusCode, 200, rerotated.raw);
  const again = await t0.request('POST', `/api/webhooks/${hook.id}/test`, { token });
  t.is(again.body.data?.status, 'delivered', again.raw);
  const last = (await r.waitFor(2))[1]!;
  t.is(last.headers['webhook-signature']!.toString().split(' ').length, 1);
  t.true(verifyStandardWebhook('newest-secret-abcdefghi', last.body, last.headers));
  t.is(last.headers['x-svc-signature-previous'], undefined);
});

test('the test call sends webhook.test once and reports a failure without retrying', async (t) => {
  const { token } = await t0.tenant();
  const r = await receiver();
  r.respond(() => ({ status: 418, body: 'teapot' }));
  const hook = await webhook(token, r, { active: false });
  const res = await t0.request('POST', `/api/webhooks/${hook.id}/test`, { token });
  t.is(res.statusCode, 200);
  t.like(res.body.data, { event: 'webhook.test', status: 'failed', response_code: 418, attempts: 1 });
  t.like(res.body.data.attempt_log[0], { response_body: 'teapot', error_code: 'http_status' });
  const body = JSON.parse(r.requests[0]!.body);
  t.is(body.event, 'webhook.test');
  t.is(body.data.webhook_id, hook.id);
  await new Promise((resolve) => setTimeout(resolve, 600));
  t.is(r.requests.length, 1);
});

test('an inactive webhook gets no deliveries; a webhook gets no events from before it existed', async (t) => {
  const { token } = await t0.tenant();
  const [rOff, rLate] = [await receiver(), await receiver()];
  const off = await webhook(token, rOff, { active: false, events: ['asset.created'] });
  const a = await asset(token, 'early.example.com');
  await t0.ctx.background.webhooks.dispatcher.drain();
  const late = await webhook(token, rLate, { events: ['asset.created'] });
  const b = await asset(token, 'late.example.com');
  await rLate.waitFor(1);
  await t0.ctx.background.webhooks.dispatcher.drain();
  t.is((await deliveries(token, off.id)).length, 0);
  t.is(rOff.requests.length, 0);
  const got = rLate.requests.map((q) => JSON.parse(q.body).data.asset_id ?? JSON.parse(q.body).data.id);
  t.false(got.includes(a.id));
  t.true(got.includes(b.id) || rLate.requests.some((q) => q.body.includes(b.id)));
  t.is((await deliveries(token, late.id)).length, 1);
});
