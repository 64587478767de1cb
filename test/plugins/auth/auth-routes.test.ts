import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
let tenantId: string;
test.before(async () => {
  t0 = await createTestApp();
  tenantId = (await t0.tenant({ tier: 'standard' })).tenantId;
  await t0.ctx.services.admin.createUser(tenantId, { email: 'erin@example.com', name: 'Erin', password: 'erin has a long password', scopes: ['assets:read', 'findings:read'] });
});
test.after.always(async () => {
  await t0?.close();
});

test('login returns a short-lived token with the user scopes', async (t) => {
  const res = await t0.request('POST', '/api/user/auth/login', { token: null, payload: { email: 'ERIN@example.com', password: 'erin has a long password' } });
  t.is(res.statusCode, 200);
  const data = res.body.data;
  t.is(data.token_type, 'Bearer');
  t.deepEqual(data.scopes, ['assets:read', 'findings:read']);
  t.is(data.tenant_id, tenantId);
  const ttl = Date.parse(data.expires_at) - Date.now();
  t.true(ttl > 3500_000 && ttl <= 3600_000);
  const me = await t0.request('GET', '/api/user/me', { token: data.token });
  t.is(me.statusCode, 200);
  t.is(me.body.data.token.kind, 'login');
  t.is(me.body.data.user_id, data.user_id);
  const admin = await t0.request('GET', '/api/admin/tenants', { token: data.token });
  t.is(admin.statusCode, 403);
});

test('wrong password and unknown email give the same 401', async (t) => {
  const wrong = await t0.request('POST', '/api/user/auth/login', { token: null, payload: { email: 'erin@example.com', password: 'nope' } });
  const unknown = await t0.request('POST', '/api/user/auth/login', { token: null, payload: { email: 'nobody@example.com', password: 'nope' } });
  t.is(wrong.statusCode, 401);
  t.is(unknown.statusCode, 401);
  t.deepEqual(wrong.body, unknown.body);
  t.is(wrong.body.error.code, 'invalid_credentials');
});

test('login input validation', async (t) => {
  for (const payload of [{}, { email: 'erin@example.com' }, { email: 'x', password: 'y' }, { email: 'erin@example.com', password: 'p', extra: 1 }]) {
    const res = await t0.request('POST', '/api/user/auth/login', { token: null, payload });
    t.is(res.statusCode, 400, JSON.stringify(payload));
    t.is(res.body.error.code, 'validation_failed');
  }
});

test('logout revokes the presented token', async (t) => {
  const login = await t0.request('POST', '/api/user/auth/login', { token: null, payload: { email: 'erin@example.com', password: 'erin has a long password' } });
  const token = login.body.data.token;
  t.is((await t0.request('POST', '/api/user/auth/logout', { token })).statusCode, 204);
  t.is((await t0.request('GET', '/api/user/me', { token })).statusCode, 401);
});

test('401 for missing, malformed, unknown tokens, with WWW-Authenticate', async (t) => {
  const cases: Array<Record<string, string>> = [
    {},
    { authorization: 'Basic dXNlcjpwYXNz' },
    { authorization: 'Bearer' },
    { authorization: 'Bearer rmp_unknown' },
    { authorization: `Bearer ${t0.adminToken}x` },
  ];
  for (const headers of cases) {
    const res = await t0.request('GET', '/api/user/me', { token: null, headers });
    t.is(res.statusCode, 401, JSON.stringify(headers));
    t.is(res.body.status, 'error');
    t.is(res.body.error.code, 'unauthorized');
    t.is(res.headers['www-authenticate'], 'Bearer realm="rampart"');
  }
});

test('the query-string token is refused on ordinary routes', async (t) => {
  const res = await t0.request('GET', `/api/user/me?token=${t0.adminToken}`, { token: null });
  t.is(res.statusCode, 401);
});

test('health needs no token', async (t) => {
  const res = await t0.request('GET', '/api/health', { token: null });
  t.is(res.statusCode, 200);
  t.is(res.body.data.status, 'ok');
  t.is(res.body.data.database.status, 'ok');
  t.is(res.body.data.database.engine, t0.database.engine);
});
