import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { InputError } from '../../../core/errors.ts';

let t0: TestApp;

test.before(async () => {
  t0 = await createTestApp();
});

test.after.always(async () => {
  await t0?.close();
});

const PROD = 'prod-value-8c2e1a';
const SBX = 'sandbox-value-4f7b9d';

test('resolve: production values, sandbox values in sandbox mode, never a fallback', async (t) => {
  const { tenantId } = await t0.tenant();
  const store = t0.ctx.services.credentials;
  await store.create(tenantId, { name: 'both', value: PROD, sandbox_value: SBX });
  await store.create(tenantId, { name: 'prod_only', value: `${PROD}-2` });
  t.deepEqual(await store.resolve(tenantId, ['both', 'prod_only', 'both'], { sandbox: false }), { both: PROD, prod_only: `${PROD}-2` });
  t.deepEqual(await store.resolve(tenantId, ['both'], { sandbox: true }), { both: SBX });
  const err = await t.throwsAsync(store.resolve(tenantId, ['both', 'prod_only'], { sandbox: true }), { instanceOf: InputError });
  t.is(err!.code, 'sandbox_credential_missing');
  t.deepEqual(err!.extra, { credential: 'prod_only' });
  t.false(err!.message.includes(PROD));
  t.deepEqual(await store.resolve(tenantId, [], { sandbox: true }), {});
});

test('resolve: a missing credential is a 400 credential_missing naming it', async (t) => {
  const { tenantId } = await t0.tenant();
  const err = await t.throwsAsync(t0.ctx.services.credentials.resolve(tenantId, ['nope'], { sandbox: false }), { instanceOf: InputError });
  t.is(err!.statusCode, 400);
  t.is(err!.code, 'credential_missing');
  t.regex(err!.message, /"nope"/);
});

test('a sealed value is bound to its tenant, name and slot: copied elsewhere it does not open', async (t) => {
  const a = await t0.tenant();
  const b = await t0.tenant();
  const store = t0.ctx.services.credentials;
  await store.create(a.tenantId, { name: 'k', value: PROD, sandbox_value: SBX });
  await store.create(b.tenantId, { name: 'k', value: 'placeholder-value' });
  const row = await t0.ctx.db('credentials').where({ tenant_id: a.tenantId, name: 'k' }).first();
  await t0.ctx.db('credentials').where({ tenant_id: b.tenantId, name: 'k' }).update({ value_sealed: row.value_sealed });
  await t.throwsAsync(store.resolve(b.tenantId, ['k'], { sandbox: false }));
  await t0.ctx.db('credentials').where({ tenant_id: a.tenantId, name: 'k' }).update({ value_sealed: row.sandbox_value_sealed });
  await t.throwsAsync(store.resolve(a.tenantId, ['k'], { sandbox: false }));
});
