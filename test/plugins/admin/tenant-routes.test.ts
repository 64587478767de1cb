import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(async () => {
  await t0?.close();
});

test('bootstrap created tenant default, visible to the admin token', async (t) => {
  const res = await t0.request('GET', '/api/admin/tenants');
  t.is(res.statusCode, 200);
  t.true(res.body.data.some((x: { name: string; tier: string }) => x.name === 'default' && x.tier === 'enterprise'));
  t.deepEqual(Object.keys(res.body.meta).sort(), ['page', 'per_page', 'total', 'total_pages']);
});

test('create, get, rename and re-tier a tenant', async (t) => {
  const created = await t0.request('POST', '/api/admin/tenants', { payload: { name: 'acme-corp' } });
  t.is(created.statusCode, 201);
  t.is(created.body.data.tier, 'standard');
  t.regex(created.body.data.id, /^ten_[0-9A-Z]{26}$/);
  t.regex(created.body.data.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const id = created.body.data.id;
  const got = await t0.request('GET', `/api/admin/tenants/${id}`);
  t.deepEqual(got.body.data, created.body.data);
  const patched = await t0.request('PATCH', `/api/admin/tenants/${id}`, { payload: { tier: 'premium', name: 'acme' } });
  t.is(patched.statusCode, 200);
  t.is(patched.body.data.tier, 'premium');
  t.is(patched.body.data.name, 'acme');
});

test('duplicate tenant name is 409 tenant_exists', async (t) => {
  t.is((await t0.request('POST', '/api/admin/tenants', { payload: { name: 'dup' } })).statusCode, 201);
  const again = await t0.request('POST', '/api/admin/tenants', { payload: { name: 'dup' } });
  t.is(again.statusCode, 409);
  t.is(again.body.error.code, 'tenant_exists');
});

test('bad input is a 400 in the error shape and writes nothing', async (t) => {
  const cases: Array<[unknown, string]> = [
    [{ name: 'x', tier: 'gold' }, 'tier'],
    [{ name: '' }, 'name'],
    [{ name: 42 }, 'name'],
    [{}, 'name'],
    [{ name: 'never-created', extra: true }, 'extra'],
  ];
  for (const [payload, field] of cases) {
    const res = await t0.request('POST', '/api/admin/tenants', { payload });
    t.is(res.statusCode, 400, JSON.stringify(payload));
    t.is(res.body.status, 'error');
    t.is(res.body.error.code, 'validation_failed');
    t.true(res.body.error.details.some((d: { field: string }) => d.field === field), JSON.stringify(res.body));
  }
  const names = (await t0.request('GET', '/api/admin/tenants?per_page=100')).body.data.map((x: { name: string }) => x.name);
  t.false(names.includes('never-created'));
});

test('malformed and unknown tenant ids', async (t) => {
  const malformed = await t0.request('GET', '/api/admin/tenants/not-an-id');
  t.is(malformed.statusCode, 400);
  t.is(malformed.body.error.details[0].field, 'tenant_id');
  const unknown = await t0.request('GET', '/api/admin/tenants/ten_01M7ZD0NNG3X9SWF1J8WR7V1FB');
  t.is(unknown.statusCode, 404);
  t.is(unknown.body.error.code, 'not_found');
});

test('pagination: defaults, pages and out-of-range values', async (t) => {
  for (let i = 0; i < 3; i++) await t0.request('POST', '/api/admin/tenants', { payload: { name: `page-${i}` } });
  const all = await t0.request('GET', '/api/admin/tenants');
  t.is(all.body.meta.page, 1);
  t.is(all.body.meta.per_page, 20);
  const total = all.body.meta.total;
  const p1 = await t0.request('GET', '/api/admin/tenants?per_page=2&page=1');
  const p2 = await t0.request('GET', '/api/admin/tenants?per_page=2&page=2');
  t.is(p1.body.data.length, 2);
  t.is(p1.body.meta.total_pages, Math.ceil(total / 2));
  t.notDeepEqual(p1.body.data[0].id, p2.body.data[0].id);
  for (const q of ['page=0', 'per_page=0', 'per_page=101', 'page=abc', 'per_page=1.5']) {
    const res = await t0.request('GET', `/api/admin/tenants?${q}`);
    t.is(res.statusCode, 400, q);
    t.is(res.body.error.code, 'validation_failed');
  }
  const beyond = await t0.request('GET', '/api/admin/tenants?page=999');
  t.is(beyond.statusCode, 200);
  t.deepEqual(beyond.body.data, []);
});

test('admin routes need the admin scope', async (t) => {
  const { token } = await t0.tenant();
  const res = await t0.request('GET', '/api/admin/tenants', { token });
  t.is(res.statusCode, 403);
  t.is(res.body.error.code, 'insufficient_scope');
  t.deepEqual(res.body.error.required_scopes, ['admin']);
});
