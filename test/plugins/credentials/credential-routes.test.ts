import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;

test.before(async () => {
  t0 = await createTestApp();
});

test.after.always(async () => {
  await t0?.close();
});

const VALUE = 'canary-prod-7f3a9c1e5b';
const SANDBOX = 'canary-sbx-2d8e4f6a0c';
const ROTATED = 'canary-rot-9b1c3e5d7f';
const ALL = [VALUE, SANDBOX, ROTATED];

const count = async (tenantId: string) => Number((await t0.ctx.db('credentials').where({ tenant_id: tenantId }).count({ n: '*' }).first())!.n);

test('create, list, get, rotate, delete: values never in any response nor in the row', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const bodies: string[] = [];
  const req = async (method: string, url: string, payload?: unknown) => {
    const res = await t0.request(method, url, { token, payload });
    bodies.push(res.raw);
    return res;
  };
  const created = await req('POST', '/api/credentials', { name: 'fw_key', value: VALUE, sandbox_value: SANDBOX });
  t.is(created.statusCode, 201);
  t.deepEqual(Object.keys(created.body.data).sort(), ['created_at', 'has_sandbox_value', 'name', 'updated_at']);
  t.like(created.body.data, { name: 'fw_key', has_sandbox_value: true });
  await req('POST', '/api/credentials', { name: 'a.other-1', value: 'x'.repeat(8) });
  const list = await req('GET', '/api/credentials');
  t.deepEqual(list.body.data.map((c: { name: string }) => c.name), ['a.other-1', 'fw_key']);
  t.like(list.body.meta, { total: 2, page: 1, per_page: 20 });
  t.is((await req('GET', '/api/credentials?per_page=1&page=2')).body.data[0].name, 'fw_key');
  t.is((await req('GET', '/api/credentials/fw_key')).statusCode, 200);
  const rotated = await req('PUT', '/api/credentials/fw_key', { value: ROTATED, sandbox_value: null });
  t.is(rotated.statusCode, 200);
  t.is(rotated.body.data.has_sandbox_value, false);
  t.deepEqual(await t0.ctx.services.credentials.resolve(tenantId, ['fw_key'], { sandbox: false }), { fw_key: ROTATED });
  const row = await t0.ctx.db('credentials').where({ tenant_id: tenantId, name: 'fw_key' }).first();
  for (const v of ALL) t.false(JSON.stringify(row).includes(v), 'sealed at rest');
  const del = await req('DELETE', '/api/credentials/fw_key');
  t.is(del.statusCode, 204);
  t.is(del.raw, '');
  t.is((await req('GET', '/api/credentials/fw_key')).statusCode, 404);
  t.is((await req('DELETE', '/api/credentials/fw_key')).statusCode, 404);
  t.is((await req('PUT', '/api/credentials/fw_key', { value: ROTATED })).statusCode, 404);
  for (const body of bodies) for (const v of ALL) t.false(body.includes(v), `a value leaked into ${body.slice(0, 80)}`);
});

test('duplicate name is 409; bad input is 400; neither writes', async (t) => {
  const { token, tenantId } = await t0.tenant();
  t.is((await t0.request('POST', '/api/credentials', { token, payload: { name: 'k', value: VALUE } })).statusCode, 201);
  const dup = await t0.request('POST', '/api/credentials', { token, payload: { name: 'k', value: ROTATED } });
  t.is(dup.statusCode, 409);
  t.is(dup.body.error.code, 'credential_exists');
  t.false(dup.raw.includes(ROTATED));
  for (const payload of [
    { name: 'k2', value: 'short' },
    { name: 'k2', value: 'x'.repeat(65537) },
    { name: 'bad name', value: VALUE },
    { name: '', value: VALUE },
    { name: 'n'.repeat(101), value: VALUE },
    { name: 'k2' },
    { name: 'k2', value: VALUE, sandbox_value: 'short' },
    { name: 'k2', value: VALUE, extra: 1 },
  ]) {
    const res = await t0.request('POST', '/api/credentials', { token, payload });
    t.is(res.statusCode, 400, JSON.stringify(payload).slice(0, 100));
    t.is(res.body.error.code, 'validation_failed');
    t.false(res.raw.includes(VALUE), 'the error does not echo the value');
  }
  t.is((await t0.request('PUT', '/api/credentials/k', { token, payload: {} })).statusCode, 400);
  t.is((await t0.request('PUT', '/api/credentials/k', { token, payload: { value: 'short' } })).statusCode, 400);
  t.deepEqual(await t0.ctx.services.credentials.resolve(tenantId, ['k'], { sandbox: false }), { k: VALUE });
  t.is(await count(tenantId), 1);
});

test('tenant isolation and the integrations:manage scope', async (t) => {
  const a = await t0.tenant();
  const b = await t0.tenant();
  await t0.request('POST', '/api/credentials', { token: a.token, payload: { name: 'k', value: VALUE } });
  t.is((await t0.request('GET', '/api/credentials/k', { token: b.token })).statusCode, 404);
  t.is((await t0.request('PUT', '/api/credentials/k', { token: b.token, payload: { value: ROTATED } })).statusCode, 404);
  t.is((await t0.request('DELETE', '/api/credentials/k', { token: b.token })).statusCode, 404);
  t.is((await t0.request('GET', '/api/credentials', { token: b.token })).body.meta.total, 0);
  await t.throwsAsync(t0.ctx.services.credentials.resolve(b.tenantId, ['k'], { sandbox: false }), { message: /"k" is not set/ });
  t.deepEqual(await t0.ctx.services.credentials.resolve(a.tenantId, ['k'], { sandbox: false }), { k: VALUE });
  const actions = await t0.tenant({ scopes: ['actions:read', 'actions:write', 'actions:execute'] });
  for (const [method, url, payload] of [
    ['POST', '/api/credentials', { name: 'k', value: VALUE }],
    ['GET', '/api/credentials'],
    ['GET', '/api/credentials/k'],
    ['PUT', '/api/credentials/k', { value: VALUE }],
    ['DELETE', '/api/credentials/k'],
  ] as Array<[string, string, unknown?]>) {
    const res = await t0.request(method, url, { token: actions.token, payload });
    t.is(res.statusCode, 403, `${method} ${url}`);
    t.is(res.body.error.code, 'insufficient_scope');
  }
  t.is(await count(actions.tenantId), 0);
});
