import test from 'ava';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
let receiver: HttpsReceiver;

test.before(async () => {
  const { ca } = await sharedTestCertificates();
  receiver = await startHttpsReceiver();
  t0 = await createTestApp({ outbound: { caCerts: [ca.certPem] }, webhooks: { maxPerTenant: 3 } });
});

test.after.always(async () => {
  await t0?.close();
  await receiver?.close();
});

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

function body(overrides: Record<string, unknown> = {}) {
  return { name: 'SOC', url: `${receiver.origin}/hook`, events: ['finding.new', 'scan.completed'], ...overrides };
}

test('create answers 201 with the spec fields and never the secret or header values', async (t) => {
  const { token } = await t0.tenant();
  const res = await t0.request('POST', '/api/webhooks', { token, payload: body({ secret: SECRET, headers: { Authorization: 'Splunk 1234-abcd' }, filters: { min_severity: 'high' }, transform: 'hec' }) });
  t.is(res.statusCode, 201);
  const data = res.body.data;
  t.regex(data.id, /^whk_/);
  t.like(data, { name: 'SOC', url: `${receiver.origin}/hook`, events: ['finding.new', 'scan.completed'], active: true, transform: 'hec', has_secret: true, header_names: ['Authorization'], filters: { min_severity: 'high' } });
  t.truthy(Date.parse(data.created_at));
  t.false(res.raw.includes(SECRET.slice(6)));
  t.false(res.raw.includes('1234-abcd'));
  const got = await t0.request('GET', `/api/webhooks/${data.id}`, { token });
  t.is(got.statusCode, 200);
  t.false(got.raw.includes(SECRET.slice(6)));
  t.false('secret' in got.body.data);
  const row = await t0.ctx.db('webhooks').where({ id: data.id }).first();
  t.false(JSON.stringify(row).includes(SECRET.slice(6)), 'the secret is encrypted at rest');
  t.false(JSON.stringify(row).includes('1234-abcd'), 'header values are encrypted at rest');
});

test('list is newest first and paginated; get/put/delete work; list carries Last-Modified', async (t) => {
  const { token } = await t0.tenant();
  const a = (await t0.request('POST', '/api/webhooks', { token, payload: body({ name: 'a' }) })).body.data;
  const b = (await t0.request('POST', '/api/webhooks', { token, payload: body({ name: 'b' }) })).body.data;
  const list = await t0.request('GET', '/api/webhooks?per_page=1', { token });
  t.is(list.statusCode, 200);
  t.deepEqual(list.body.meta, { total: 2, page: 1, per_page: 1, total_pages: 2 });
  t.is(list.body.data[0].id, b.id);
  t.truthy(list.headers['last-modified']);
  const put = await t0.request('PUT', `/api/webhooks/${a.id}`, { token, payload: { events: ['asset.*'], active: false, secret: 'a-new-secret-value-1234' } });
  t.is(put.statusCode, 200);
  t.like(put.body.data, { events: ['asset.*'], active: false, disabled_reason: 'manual', has_secret: true });
  const removed = await t0.request('PUT', `/api/webhooks/${a.id}`, { token, payload: { secret: null, active: true } });
  t.like(removed.body.data, { has_secret: false, active: true, disabled_reason: null });
  const del = await t0.request('DELETE', `/api/webhooks/${a.id}`, { token });
  t.is(del.statusCode, 200);
  t.is((await t0.request('GET', `/api/webhooks/${a.id}`, { token })).statusCode, 404);
  t.is((await t0.request('DELETE', `/api/webhooks/${a.id}`, { token })).statusCode, 404);
});

test('bad input is a 400 and writes nothing', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ name: 'x', events: ['finding.new'] }, 'validation_failed'],
    [body({ events: [] }), 'validation_failed'],
    [body({ events: ['finding.created'] }), 'validation_failed'],
    [body({ events: ['system.alert'] }), 'validation_failed'],
    [body({ secret: 'short' }), 'validation_failed'],
    [body({ transform: 'xml' }), 'validation_failed'],
    [body({ filters: { min_severity: 'severe' } }), 'validation_failed'],
    [body({ filters: { nope: 1 } }), 'validation_failed'],
    [body({ headers: { 'X-SVC-Signature': 'forged' } }), 'validation_failed'],
    [body({ headers: { 'webhook-id': 'x' } }), 'validation_failed'],
    [body({ headers: { 'X-A': 'line\r\nbreak' } }), 'validation_failed'],
    [body({ headers: { 'bad header': 'x' } }), 'validation_failed'],
    [body({ url: 'not a url' }), 'invalid_url'],
    [body({ url: `http://127.0.0.1:${receiver.port}/hook` }), 'https_required'],
    [body({ url: 'https://user:pw@example.com/' }), 'invalid_url'],
    [body({ unknown_field: true }), 'validation_failed'],
  ];
  for (const [payload, code] of cases) {
    const res = await t0.request('POST', '/api/webhooks', { token, payload });
    t.is(res.statusCode, 400, JSON.stringify(payload));
    t.is(res.body.error.code, code, JSON.stringify(payload));
  }
  t.is((await t0.ctx.db('webhooks').where({ tenant_id: tenantId }).count({ n: '*' }).first())!.n, 0);
  const malformed = await t0.request('GET', '/api/webhooks/not-an-id', { token });
  t.is(malformed.statusCode, 400);
  t.is((await t0.request('PUT', '/api/webhooks/whk_00000000000000000000000000', { token, payload: {} })).statusCode, 400);
});

test('header values that are not HTTP header text are refused at create and update with a 400 naming the header; nothing changes', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const cases: Array<[Record<string, string>, string, RegExp]> = [
    // The README's old example: a non-ASCII ellipsis pasted into a token.
    [{ Authorization: 'Splunk 0f3c…' }, 'headers.Authorization', /U\+2026 \(…\), which is not ASCII/],
    [{ 'X-A': 'line\r\nbreak' }, 'headers.X-A', /line break/],
    [{ 'X-B': 'only\nLF' }, 'headers.X-B', /line break/],
    [{ 'X-C': 'nul\u0000byte' }, 'headers.X-C', /control character U\+0000/],
    [{ 'X-D': 'bell\u0007' }, 'headers.X-D', /control character U\+0007/],
    [{ 'X-E': 'del\u007f' }, 'headers.X-E', /control character U\+007F/],
    [{ 'X-F': 'caf\u00e9' }, 'headers.X-F', /U\+00E9 \(é\), which is not ASCII/],
    [{ 'X-G': ' padded' }, 'headers.X-G', /starts or ends with a space or tab/],
    [{ 'X-Ok': 'fine', 'X-H': 'emoji 🔑' }, 'headers.X-H', /U\+1F511/],
  ];
  for (const [headers, field, message] of cases) {
    const res = await t0.request('POST', '/api/webhooks', { token, payload: body({ headers }) });
    t.is(res.statusCode, 400, field);
    t.is(res.body.error.code, 'validation_failed', field);
    const detail = (res.body.error.details as Array<{ field: string; message: string }>).find((d) => d.field === field);
    t.truthy(detail, `${field} is named: ${res.raw}`);
    t.regex(detail!.message, message);
    t.regex(res.body.error.message, new RegExp(field.replace('.', '\\.')));
    t.false(res.raw.includes('0f3c'), 'the value is not echoed');
  }
  t.is(Number((await t0.ctx.db('webhooks').where({ tenant_id: tenantId }).count({ n: '*' }).first())!.n), 0);

  // Tabs and spaces inside a value, and every visible ASCII character, are header text.
  const visible = Array.from({ length: 94 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
  const created = await t0.request('POST', '/api/webhooks', { token, payload: body({ headers: { Authorization: 'Splunk\t0f3c valid', 'X-All': visible } }) });
  t.is(created.statusCode, 201, created.raw);
  const id = created.body.data.id as string;
  const sealedBefore = (await t0.ctx.db('webhooks').where({ id }).first()).headers_sealed;
  const update = await t0.request('PUT', `/api/webhooks/${id}`, { token, payload: { headers: { Authorization: 'Splunk 0f3c…' } } });
  t.is(update.statusCode, 400);
  t.is(update.body.error.details[0].field, 'headers.Authorization');
  t.is((await t0.ctx.db('webhooks').where({ id }).first()).headers_sealed, sealedBefore, 'the stored headers are unchanged');
  t.deepEqual((await t0.request('GET', `/api/webhooks/${id}`, { token })).body.data.header_names, ['Authorization', 'X-All']);
});

test('SSRF: private, link-local and metadata destinations are refused at registration', async (t) => {
  const { token } = await t0.tenant();
  for (const url of ['https://10.0.0.5/hook', 'https://169.254.169.254/latest/meta-data/', 'https://192.168.1.10/', 'https://100.64.0.1/', 'https://[fe80::1]/', 'https://[fd00::1]/', 'https://0.0.0.0/', 'https://224.0.0.1/']) {
    const res = await t0.request('POST', '/api/webhooks', { token, payload: body({ url }) });
    t.is(res.statusCode, 400, url);
    t.is(res.body.error.code, 'url_not_allowed', url);
  }
  const hook = (await t0.request('POST', '/api/webhooks', { token, payload: body() })).body.data;
  const put = await t0.request('PUT', `/api/webhooks/${hook.id}`, { token, payload: { url: 'https://169.254.169.254/' } });
  t.is(put.statusCode, 400);
  t.is(put.body.error.code, 'url_not_allowed');
  t.is((await t0.request('GET', `/api/webhooks/${hook.id}`, { token })).body.data.url, `${receiver.origin}/hook`);
});

test('tenant isolation: another tenant sees 404 and an empty list', async (t) => {
  const a = await t0.tenant();
  const b = await t0.tenant();
  const hook = (await t0.request('POST', '/api/webhooks', { token: a.token, payload: body() })).body.data;
  for (const [method, url, payload] of [
    ['GET', `/api/webhooks/${hook.id}`],
    ['PUT', `/api/webhooks/${hook.id}`, { active: false }],
    ['DELETE', `/api/webhooks/${hook.id}`],
    ['POST', `/api/webhooks/${hook.id}/test`],
    ['GET', `/api/webhooks/${hook.id}/deliveries`],
    ['POST', `/api/webhooks/${hook.id}/rotate-secret`, { secret: 'another-secret-0123456' }],
    ['POST', `/api/webhooks/${hook.id}/recover`, { since: '2020-01-01T00:00:00Z' }],
  ] as Array<[string, string, unknown?]>) {
    t.is((await t0.request(method, url, { token: b.token, payload })).statusCode, 404, `${method} ${url}`);
  }
  t.is((await t0.request('GET', '/api/webhooks', { token: b.token })).body.meta.total, 0);
  t.true((await t0.request('GET', `/api/webhooks/${hook.id}`, { token: a.token })).body.data.active);
});

test('scope webhooks:manage is required; no token is 401', async (t) => {
  const { token } = await t0.tenant({ scopes: ['assets:read'] });
  t.is((await t0.request('GET', '/api/webhooks', { token })).statusCode, 403);
  t.is((await t0.request('POST', '/api/webhooks', { token, payload: body() })).statusCode, 403);
  t.is((await t0.request('GET', '/api/webhooks', { token: null })).statusCode, 401);
});

test('the per-tenant webhook limit answers 409', async (t) => {
  const { token } = await t0.tenant();
  for (let i = 0; i < 3; i++) t.is((await t0.request('POST', '/api/webhooks', { token, payload: body({ name: `n${i}` }) })).statusCode, 201);
  const res = await t0.request('POST', '/api/webhooks', { token, payload: body() });
  t.is(res.statusCode, 409);
  t.is(res.body.error.code, 'webhook_limit_reached');
});

test('rotate-secret reports the grace period; retry of a non-failed delivery is 409; recover validates its range', async (t) => {
  const { token } = await t0.tenant();
  const hook = (await t0.request('POST', '/api/webhooks', { token, payload: body({ secret: SECRET }) })).body.data;
  const rotated = await t0.request('POST', `/api/webhooks/${hook.id}/rotate-secret`, { token, payload: { secret: 'rotated-secret-0123456789', grace_period_seconds: 3600 } });
  t.is(rotated.statusCode, 200);
  t.truthy(rotated.body.data.secret_rotation_ends_at);
  t.is((await t0.request('POST', `/api/webhooks/${hook.id}/rotate-secret`, { token, payload: {} })).statusCode, 400);
  const test1 = await t0.request('POST', `/api/webhooks/${hook.id}/test`, { token });
  t.is(test1.statusCode, 200);
  t.is(test1.body.data.status, 'delivered');
  const retry = await t0.request('POST', `/api/webhooks/${hook.id}/deliveries/${test1.body.data.id}/retry`, { token });
  t.is(retry.statusCode, 409);
  t.is(retry.body.error.code, 'delivery_not_failed');
  t.is((await t0.request('POST', `/api/webhooks/${hook.id}/deliveries/dlv_00000000000000000000000000/retry`, { token })).statusCode, 404);
  const range = await t0.request('POST', `/api/webhooks/${hook.id}/recover`, { token, payload: { since: '2030-01-02T00:00:00Z', until: '2030-01-01T00:00:00Z' } });
  t.is(range.statusCode, 400);
  t.is((await t0.request('POST', `/api/webhooks/${hook.id}/recover`, { token, payload: { since: 'yesterday' } })).statusCode, 400);
});
