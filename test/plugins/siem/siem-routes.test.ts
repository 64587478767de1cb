import test from 'ava';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;

test.before(async () => {
  t0 = await createTestApp();
});

test.after.always(async () => {
  await t0?.close();
});

const base = { type: 'syslog', protocol: 'tcp_tls', host: '127.0.0.1', port: 6514, format: 'cef', events: ['finding.new', 'scan.completed'] };

test('create, get, list, update and delete an integration; secrets are never returned', async (t) => {
  const { ca } = await sharedTestCertificates();
  const client = await ca.issue({ usages: ['client'], commonName: 'rampart' });
  const a = await t0.tenant();
  const created = await t0.request('POST', '/api/integrations/siem', {
    token: a.token,
    payload: { ...base, name: 'SOC', tls: { ca: ca.certPem, cert: client.certPem, key: client.keyPem, server_name: 'localhost' } },
  });
  t.is(created.statusCode, 201, created.raw);
  const data = created.body.data;
  t.regex(data.id, /^siem_/);
  t.like(data, { name: 'SOC', type: 'syslog', protocol: 'tcp_tls', host: '127.0.0.1', port: 6514, format: 'cef', facility: 16, active: true });
  t.deepEqual(data.tls, { ca_configured: true, client_cert_configured: true, client_key_configured: true, server_name: 'localhost', verify: true });
  t.false(created.raw.includes('PRIVATE KEY'));
  t.false(created.raw.includes('BEGIN CERTIFICATE'));
  const row = await t0.ctx.db('siem_integrations').where({ id: data.id }).first();
  t.false(String(row.tls_key_sealed).includes('PRIVATE KEY'));

  const got = await t0.request('GET', `/api/integrations/siem/${data.id}`, { token: a.token });
  t.is(got.statusCode, 200);
  t.deepEqual(got.body.data, data);
  const list = await t0.request('GET', '/api/integrations/siem', { token: a.token });
  t.deepEqual(list.body.meta, { total: 1, page: 1, per_page: 20, total_pages: 1 });

  const updated = await t0.request('PUT', `/api/integrations/siem/${data.id}`, { token: a.token, payload: { format: 'rfc5424', events: ['system.alert'], tls: { server_name: null } } });
  t.is(updated.statusCode, 200, updated.raw);
  t.like(updated.body.data, { format: 'rfc5424', events: ['system.alert'], tls: { ca_configured: true, client_key_configured: true, server_name: null } });

  const plain = await t0.request('PUT', `/api/integrations/siem/${data.id}`, { token: a.token, payload: { protocol: 'udp', port: 514 } });
  t.is(plain.statusCode, 200);
  t.is(plain.body.data.tls, null);
  t.is((await t0.ctx.db('siem_integrations').where({ id: data.id }).first()).tls_key_sealed, null);

  t.is((await t0.request('DELETE', `/api/integrations/siem/${data.id}`, { token: a.token })).statusCode, 200);
  t.is((await t0.request('GET', `/api/integrations/siem/${data.id}`, { token: a.token })).statusCode, 404);
  t.is(await t0.ctx.db('event_cursors').where({ consumer: `siem:${data.id}` }).first(), undefined);
});

test('bad input is a 400 and writes nothing', async (t) => {
  const a = await t0.tenant();
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ ...base, protocol: 'http' }, 'validation_failed'],
    [{ ...base, format: 'leef' }, 'validation_failed'],
    [{ ...base, type: 'hec' }, 'validation_failed'],
    [{ ...base, events: ['nope'] }, 'validation_failed'],
    [{ ...base, events: [] }, 'validation_failed'],
    [{ ...base, port: 70000 }, 'validation_failed'],
    [{ ...base, host: 'not a host' }, 'validation_failed'],
    [{ ...base, facility: 24 }, 'validation_failed'],
    [{ ...base, host: '10.1.2.3' }, 'host_not_allowed'],
    [{ ...base, host: '169.254.169.254' }, 'host_not_allowed'],
    [{ ...base, protocol: 'tcp', tls: { verify: false } }, 'tls_not_applicable'],
    [{ ...base, tls: { ca: '-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n' } }, 'invalid_tls_material'],
    [{ ...base, tls: { cert: '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n' } }, 'tls_incomplete'],
  ];
  for (const [payload, code] of cases) {
    const res = await t0.request('POST', '/api/integrations/siem', { token: a.token, payload });
    t.is(res.statusCode, 400, JSON.stringify(payload));
    t.is(res.body.error.code, code, JSON.stringify(payload));
  }
  t.is((await t0.request('GET', '/api/integrations/siem', { token: a.token })).body.meta.total, 0);
});

test('scope integrations:manage is required; another tenant\'s integration is a 404', async (t) => {
  const a = await t0.tenant();
  const b = await t0.tenant();
  const reader = await t0.tenant({ scopes: ['events:read'] });
  t.is((await t0.request('GET', '/api/integrations/siem', { token: reader.token })).statusCode, 403);
  t.is((await t0.request('POST', '/api/integrations/siem', { token: null, payload: base })).statusCode, 401);
  const created = await t0.request('POST', '/api/integrations/siem', { token: a.token, payload: base });
  const id = created.body.data.id;
  for (const [method, url, payload] of [
    ['GET', `/api/integrations/siem/${id}`],
    ['PUT', `/api/integrations/siem/${id}`, { active: false }],
    ['POST', `/api/integrations/siem/${id}/test`],
    ['DELETE', `/api/integrations/siem/${id}`],
  ] as Array<[string, string, unknown?]>) {
    t.is((await t0.request(method, url, { token: b.token, payload })).statusCode, 404, `${method} ${url}`);
  }
  t.is((await t0.request('GET', '/api/integrations/siem', { token: b.token })).body.meta.total, 0);
  t.is((await t0.request('GET', '/api/integrations/siem/siem_bad', { token: a.token })).statusCode, 400);
});

test('the test call reports an unreachable collector without failing the request', async (t) => {
  const a = await t0.tenant();
  // Port 9 on loopback: nothing listens there in the test environment.
  const created = await t0.request('POST', '/api/integrations/siem', { token: a.token, payload: { ...base, protocol: 'tcp', port: 9 } });
  const res = await t0.request('POST', `/api/integrations/siem/${created.body.data.id}/test`, { token: a.token });
  t.is(res.statusCode, 200);
  t.false(res.body.data.delivered);
  t.truthy(res.body.data.error);
  t.regex(res.body.data.message, /CEF:0\|Rampart\|Rampart\|/);
});

test('GETs answer 304 to If-Modified-Since when nothing changed, 200 for an older date', async (t) => {
  const a = await t0.tenant();
  const created = await t0.request('POST', '/api/integrations/siem', { token: a.token, payload: base });
  const url = `/api/integrations/siem/${created.body.data.id}`;
  // Changes of the last ~2 s are always answered 200 (core/http/last-modified.ts): age this one.
  const past = Date.now() - 10_000;
  await t0.ctx.db('siem_integrations').where({ id: created.body.data.id }).update({ updated_at: past });
  await t0.ctx.db('change_clock').where({ tenant_id: a.tenantId, collection: 'integrations' }).update({ changed_at: past });
  for (const path of ['/api/integrations/siem', url]) {
    const first = await t0.request('GET', path, { token: a.token });
    const since = String(first.headers['last-modified']);
    t.truthy(since);
    const again = await t0.request('GET', path, { token: a.token, headers: { 'if-modified-since': since } });
    t.is(again.statusCode, 304, path);
  }
  const old = new Date(Date.now() - 3600_000).toUTCString();
  t.is((await t0.request('GET', url, { token: a.token, headers: { 'if-modified-since': old } })).statusCode, 200);
});
