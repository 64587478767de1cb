import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
let tenantId: string;
test.before(async () => {
  t0 = await createTestApp();
  tenantId = (await t0.request('POST', '/api/admin/tenants', { payload: { name: 'users-co', tier: 'premium' } })).body.data.id;
});
test.after.always(async () => {
  await t0?.close();
});

test('create and list users; the password hash never appears', async (t) => {
  const res = await t0.request('POST', `/api/admin/tenants/${tenantId}/users`, {
    payload: { email: 'Alice@Example.com', name: 'Alice', password: 'a long enough password', scopes: ['assets:read'] },
  });
  t.is(res.statusCode, 201);
  t.is(res.body.data.email, 'alice@example.com');
  t.deepEqual(res.body.data.scopes, ['assets:read']);
  t.false(res.raw.includes('password'));
  t.false(res.raw.includes('scrypt'));
  const list = await t0.request('GET', `/api/admin/tenants/${tenantId}/users`);
  t.true(list.body.data.some((u: { id: string }) => u.id === res.body.data.id));
  t.false(list.raw.includes('scrypt'));
});

test('user validation: short password, unknown scope, bad email, duplicate email', async (t) => {
  const base = { email: 'bob@example.com', name: 'Bob', password: 'a long enough password', scopes: ['assets:read'] };
  const bad: Array<[Record<string, unknown>, string]> = [
    [{ ...base, password: 'short' }, 'password'],
    [{ ...base, scopes: ['root'] }, 'scopes.0'],
    [{ ...base, scopes: [] }, 'scopes'],
    [{ ...base, email: 'not-an-email' }, 'email'],
  ];
  for (const [payload, field] of bad) {
    const res = await t0.request('POST', `/api/admin/tenants/${tenantId}/users`, { payload });
    t.is(res.statusCode, 400, field);
    t.is(res.body.error.details[0].field, field);
  }
  t.is((await t0.request('POST', `/api/admin/tenants/${tenantId}/users`, { payload: base })).statusCode, 201);
  const dup = await t0.request('POST', `/api/admin/tenants/${tenantId}/users`, { payload: { ...base, email: 'BOB@example.com' } });
  t.is(dup.statusCode, 409);
  t.is(dup.body.error.code, 'user_exists');
});

test('issue a token: value shown once, then usable, listed without value, revocable', async (t) => {
  const issued = await t0.request('POST', `/api/admin/tenants/${tenantId}/tokens`, { payload: { name: 'ci', scopes: ['assets:read'] } });
  t.is(issued.statusCode, 201);
  const token: string = issued.body.data.token;
  t.regex(token, /^rmp_[A-Za-z0-9_-]{43}$/);
  t.is(issued.body.data.token_prefix, token.slice(0, 10));
  t.is(issued.body.data.expires_at, null);

  const me = await t0.request('GET', '/api/user/me', { token });
  t.is(me.statusCode, 200);
  t.is(me.body.data.tenant.id, tenantId);
  t.is(me.body.data.tenant.tier, 'premium');
  t.deepEqual(me.body.data.token.scopes, ['assets:read']);

  const list = await t0.request('GET', `/api/admin/tenants/${tenantId}/tokens`);
  t.true(list.body.data.some((x: { id: string }) => x.id === issued.body.data.id));
  t.false(list.raw.includes(token));
  t.false(list.raw.includes('token_hash'));

  const revoked = await t0.request('DELETE', `/api/admin/tokens/${issued.body.data.id}`);
  t.is(revoked.statusCode, 200);
  t.truthy(revoked.body.data.revoked_at);
  const after = await t0.request('GET', '/api/user/me', { token });
  t.is(after.statusCode, 401);
  const active = await t0.request('GET', `/api/admin/tenants/${tenantId}/tokens`);
  t.false(active.body.data.some((x: { id: string }) => x.id === issued.body.data.id));
  const all = await t0.request('GET', `/api/admin/tenants/${tenantId}/tokens?include_revoked=true`);
  t.true(all.body.data.some((x: { id: string }) => x.id === issued.body.data.id));
});

test('token expiry: in the past is refused; an expired token is 401', async (t) => {
  const past = await t0.request('POST', `/api/admin/tenants/${tenantId}/tokens`, { payload: { name: 'old', scopes: ['assets:read'], expires_at: '2001-01-01T00:00:00Z' } });
  t.is(past.statusCode, 400);
  t.is(past.body.error.code, 'invalid_expiry');
  const both = await t0.request('POST', `/api/admin/tenants/${tenantId}/tokens`, {
    payload: { name: 'x', scopes: ['assets:read'], expires_at: '2099-01-01T00:00:00Z', expires_in_seconds: 600 },
  });
  t.is(both.statusCode, 400);

  const issued = await t0.ctx.services.admin.createToken(tenantId, { name: 'soon', scopes: ['assets:read'], expiresAt: Date.now() + 3600_000 });
  t.is((await t0.request('GET', '/api/user/me', { token: issued.token })).statusCode, 200);
  // Let the expiry pass without waiting: move it into the past.
  await t0.ctx.db('api_tokens').where({ id: issued.record.id }).update({ expires_at: Date.now() - 1 });
  const expired = await t0.request('GET', '/api/user/me', { token: issued.token });
  t.is(expired.statusCode, 401);
  t.is(expired.body.error.message, 'The token has expired.');
});

test('expires_in_seconds sets an expiry that far ahead', async (t) => {
  const before = Date.now();
  const res = await t0.request('POST', `/api/admin/tenants/${tenantId}/tokens`, { payload: { name: 'hour', scopes: ['scan:read'], expires_in_seconds: 3600 } });
  t.is(res.statusCode, 201);
  const expires = Date.parse(res.body.data.expires_at);
  t.true(expires >= before + 3600_000 && expires <= Date.now() + 3600_000);
});

test('tokens of unknown tenants, unknown ids, and users of other tenants', async (t) => {
  const unknownTenant = await t0.request('POST', '/api/admin/tenants/ten_01M7ZD0NNG3X9SWF1J8WR7V1FB/tokens', { payload: { name: 'x', scopes: ['assets:read'] } });
  t.is(unknownTenant.statusCode, 404);
  t.is((await t0.request('DELETE', '/api/admin/tokens/tok_01M7ZD0NNG3X9SWF1J8WR7V1FB')).statusCode, 404);
  t.is((await t0.request('DELETE', '/api/admin/tokens/nope')).statusCode, 400);
  const other = await t0.tenant();
  const user = await t0.ctx.services.admin.createUser(other.tenantId, { email: 'carol@other.example', name: 'C', password: 'another long password', scopes: ['assets:read'] });
  const cross = await t0.request('POST', `/api/admin/tenants/${tenantId}/tokens`, { payload: { name: 'x', scopes: ['assets:read'], user_id: user.id } });
  t.is(cross.statusCode, 404);
});

test('deleting a user revokes its tokens', async (t) => {
  const user = await t0.ctx.services.admin.createUser(tenantId, { email: 'dave@example.com', name: 'D', password: 'another long password', scopes: ['assets:read'] });
  const issued = await t0.ctx.services.admin.createToken(tenantId, { name: 'd', scopes: ['assets:read'], expiresAt: null, userId: user.id });
  t.is((await t0.request('GET', '/api/user/me', { token: issued.token })).statusCode, 200);
  t.is((await t0.request('DELETE', `/api/admin/users/${user.id}`)).statusCode, 204);
  t.is((await t0.request('GET', '/api/user/me', { token: issued.token })).statusCode, 401);
  t.is((await t0.request('DELETE', `/api/admin/users/${user.id}`)).statusCode, 404);
});

test('user and token lists answer 304 until a user or token is added, removed, revoked or used; unknown tenants stay 404', async (t) => {
  const tenant = (await t0.request('POST', '/api/admin/tenants', { payload: { name: 'lm-co' } })).body.data.id as string;
  const users = `/api/admin/tenants/${tenant}/users`;
  const tokens = `/api/admin/tenants/${tenant}/tokens`;
  const user = (await t0.request('POST', users, { payload: { email: 'lm@example.com', name: 'LM', password: 'a long enough password', scopes: ['assets:read'] } })).body.data;
  const issued = (await t0.request('POST', tokens, { payload: { name: 'ci', scopes: ['assets:read'] } })).body.data;
  // Changes of the last ~2 s are always answered 200 (core/http/last-modified.ts): age them.
  const age = async () => {
    const past = Date.now() - 10_000;
    await t0.ctx.db('change_clock').where({ tenant_id: tenant }).update({ changed_at: past });
    await t0.ctx.db('api_tokens').where({ tenant_id: tenant }).whereNotNull('last_used_at').update({ last_used_at: past });
  };
  const revalidate = async (path: string) => {
    const first = await t0.request('GET', path);
    const since = String(first.headers['last-modified']);
    return (await t0.request('GET', path, { headers: { 'if-modified-since': since } })).statusCode;
  };
  await age();
  t.is(await revalidate(users), 304);
  t.is(await revalidate(tokens), 304);
  const since = String((await t0.request('GET', tokens)).headers['last-modified']);
  // Using the token changes its last_used_at, which the list shows: no longer 304.
  t.is((await t0.request('GET', '/api/user/me', { token: issued.token })).statusCode, 200);
  t.is((await t0.request('GET', tokens, { headers: { 'if-modified-since': since } })).statusCode, 200);
  await age();
  const usersSince = String((await t0.request('GET', users)).headers['last-modified']);
  t.is((await t0.request('DELETE', `/api/admin/users/${user.id}`)).statusCode, 204);
  t.is((await t0.request('GET', users, { headers: { 'if-modified-since': usersSince } })).statusCode, 200, 'a deletion moves the clock');
  const unknown = '/api/admin/tenants/ten_01J00000000000000000000000/users';
  t.is((await t0.request('GET', unknown, { headers: { 'if-modified-since': new Date().toUTCString() } })).statusCode, 404);
});
