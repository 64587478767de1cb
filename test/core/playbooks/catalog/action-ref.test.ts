import test from 'ava';
import { parseActionRef, resolveActionRef } from '../../../../core/playbooks/catalog/action-ref.ts';
import { createTestApp, type TestApp } from '../../../_helpers/harness/test-app.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(async () => {
  await t0?.close();
});

const ID = 'act_01JD3ABCDEFGHJKMNPQRSTVWXY';

test('parseActionRef: id, name, pinned name and pinned id; an @ not followed by a version is part of the name', (t) => {
  t.deepEqual(parseActionRef(ID), { kind: 'id', actionId: ID, version: null });
  t.deepEqual(parseActionRef(`${ID}@2.1.0`), { kind: 'id', actionId: ID, version: '2.1.0' });
  t.deepEqual(parseActionRef('block-ip'), { kind: 'name', name: 'block-ip', version: null });
  t.deepEqual(parseActionRef('block-ip@1.2.0'), { kind: 'name', name: 'block-ip', version: '1.2.0' });
  t.deepEqual(parseActionRef('mail@ops@1.0.0'), { kind: 'name', name: 'mail@ops', version: '1.0.0' });
  t.deepEqual(parseActionRef('mail@ops'), { kind: 'name', name: 'mail@ops', version: null });
  t.deepEqual(parseActionRef('block-ip@1.2'), { kind: 'name', name: 'block-ip@1.2', version: null });
  t.deepEqual(parseActionRef('@1.0.0'), { kind: 'name', name: '@1.0.0', version: null });
  t.deepEqual(parseActionRef('act_short'), { kind: 'name', name: 'act_short', version: null });
});

test('resolveActionRef: a name follows the active version, a pinned ref keeps its version, other tenants and unregistered versions are null', async (t) => {
  const { tenantId, token } = await t0.tenant();
  const definition = (version: string) => ({
    version, type: 'containment', description: `v${version}`,
    executor: { type: 'remote', target: 'https://firewall.example.com/api/block', method: 'POST' },
    parameters: [{ name: 'ip', type: 'string', required: true }],
  });
  const created = await t0.request('POST', '/api/actions/definitions', { token, payload: { name: 'block-ip', ...definition('1.0.0') } });
  t.is(created.statusCode, 201, created.raw);
  const id = created.body.id as string;
  const actions = t0.ctx.services.actions;
  t.is((await resolveActionRef(actions, tenantId, 'block-ip'))?.version, '1.0.0');
  t.is((await t0.request('POST', `/api/actions/definitions/${id}/versions`, { token, payload: definition('1.1.0') })).statusCode, 201);
  t.is((await resolveActionRef(actions, tenantId, 'block-ip'))?.version, '1.1.0');
  t.is((await resolveActionRef(actions, tenantId, id))?.version, '1.1.0');
  t.like(await resolveActionRef(actions, tenantId, 'block-ip@1.0.0'), { actionId: id, version: '1.0.0', description: 'v1.0.0' });
  t.like(await resolveActionRef(actions, tenantId, `${id}@1.0.0`), { actionId: id, version: '1.0.0' });
  t.is(await resolveActionRef(actions, tenantId, 'block-ip@3.0.0'), null);
  t.is(await resolveActionRef(actions, tenantId, 'unblock-ip'), null);
  t.is(await resolveActionRef(actions, tenantId, ID), null);
  const other = await t0.tenant();
  t.is(await resolveActionRef(actions, other.tenantId, 'block-ip'), null);
  t.is(await resolveActionRef(actions, other.tenantId, id), null);
  t.is(await resolveActionRef(actions, other.tenantId, `${id}@1.0.0`), null);
});
