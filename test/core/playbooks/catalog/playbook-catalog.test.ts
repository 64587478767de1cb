import test from 'ava';
import { ValidationError } from '../../../../core/errors.ts';
import { createTestApp, type TestApp } from '../../../_helpers/harness/test-app.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(async () => {
  await t0?.close();
});

async function tenant() {
  const who = await t0.tenant();
  await t0.ctx.services.actions.createReference(who.tenantId, { name: 'notify', type: 'script', executor: 'local', config: { source: 'return 1' } } as never, null);
  return who;
}

const definition = (overrides: Record<string, unknown> = {}) => ({
  name: 'p',
  version: '1.0.0',
  trigger: { event: 'finding.new', conditions: { severity: 'high' } },
  steps: [{ id: 's1', type: 'action', action_ref: 'notify', parameters: { ip: '{{ parameters.ip }}' } }],
  parameters: { ip: '10.0.0.1' },
  ...overrides,
});

test('forRun and byVersionId answer the PlaybookVersion the engine runs, with defaults filled in', async (t) => {
  const { tenantId } = await tenant();
  const catalog = t0.ctx.services.playbooks;
  const created = await catalog.create(tenantId, definition(), 'usr_x');
  const run = await catalog.forRun(tenantId, created.playbook.id);
  t.deepEqual(run, {
    name: 'p', version: '1.0.0', description: '', trigger: { event: 'finding.new', conditions: { severity: 'high' } },
    steps: [{ id: 's1', name: 's1', type: 'action', action_ref: 'notify', parameters: { ip: '{{ parameters.ip }}' } }],
    on_failure: 'abort', timeout_minutes: 60, tags: [], parameters: { ip: '10.0.0.1' },
    playbookId: created.playbook.id, tenantId, versionId: created.version.id, enabled: true,
  });
  await catalog.addVersion(tenantId, created.playbook.id, definition({ version: '1.1.0', on_failure: 'continue' }), null);
  t.is((await catalog.forRun(tenantId, created.playbook.id)).version, '1.1.0');
  const old = await catalog.byVersionId(tenantId, run.versionId);
  t.like(old, { version: '1.0.0', on_failure: 'abort', playbookId: created.playbook.id });
  const other = await t0.tenant();
  await t.throwsAsync(() => catalog.byVersionId(other.tenantId, run.versionId), { message: /not found/ });
});

test('enabledForEvent: the tenant\'s live, enabled playbooks whose active version listens to the kind', async (t) => {
  const { tenantId } = await tenant();
  const other = await tenant();
  const catalog = t0.ctx.services.playbooks;
  const a = await catalog.create(tenantId, definition({ name: 'a' }), null);
  const b = await catalog.create(tenantId, definition({ name: 'b' }), null);
  const c = await catalog.create(tenantId, definition({ name: 'c', trigger: { event: 'scan.completed' }, steps: [{ id: 's1', type: 'action', action_ref: 'notify' }] }), null);
  await catalog.create(other.tenantId, definition({ name: 'a' }), null);
  const ids = async (kind: string) => (await catalog.enabledForEvent(tenantId, kind)).map((p) => p.playbookId);
  t.deepEqual(await ids('finding.new'), [a.playbook.id, b.playbook.id]);
  t.deepEqual(await ids('scan.completed'), [c.playbook.id]);
  t.deepEqual(await ids('asset.created'), []);
  await catalog.setEnabled(tenantId, a.playbook.id, false);
  // A new version moving b to another event kind moves it in the lookup.
  await catalog.addVersion(tenantId, b.playbook.id, definition({ version: '2.0.0', trigger: { event: 'scan.completed' }, steps: [{ id: 's1', type: 'action', action_ref: 'notify' }] }), null);
  t.deepEqual(await ids('finding.new'), []);
  t.deepEqual(await ids('scan.completed'), [b.playbook.id, c.playbook.id].sort((x, y) => (x < y ? -1 : 1)));
  await catalog.remove(tenantId, c.playbook.id);
  t.deepEqual(await ids('scan.completed'), [b.playbook.id]);
  t.like((await catalog.enabledForEvent(tenantId, 'scan.completed'))[0], { version: '2.0.0', enabled: true });
});

test('check() runs every check and writes nothing; knownActionRefs count as resolving (CACAO import dry run)', async (t) => {
  const { tenantId } = await tenant();
  const catalog = t0.ctx.services.playbooks;
  const def = definition({ steps: [{ id: 's1', type: 'action', action_ref: 'to-be-imported' }] });
  const err = await t.throwsAsync(() => catalog.check(tenantId, def), { instanceOf: ValidationError });
  t.is(err?.code, 'unknown_action_ref');
  const checked = await catalog.check(tenantId, def, { knownActionRefs: ['to-be-imported'] });
  t.like(checked, { on_failure: 'abort', timeout_minutes: 60, description: '' });
  t.is(Number((await t0.ctx.db('playbooks').where({ tenant_id: tenantId }).count({ n: '*' }).first())!.n), 0);
  await t.throwsAsync(() => catalog.check(tenantId, { ...def, timeout_minutes: 2000 }, { knownActionRefs: ['to-be-imported'] }), { instanceOf: ValidationError, message: /timeout_minutes/ });
});

test('concurrent creations with one name: one wins, the others are 409 playbook_exists', async (t) => {
  const { tenantId } = await tenant();
  const catalog = t0.ctx.services.playbooks;
  const results = await Promise.allSettled([1, 2, 3, 4].map(() => catalog.create(tenantId, definition({ name: 'race' }), null)));
  t.is(results.filter((r) => r.status === 'fulfilled').length, 1);
  for (const r of results) if (r.status === 'rejected') t.is((r.reason as { code: string }).code, 'playbook_exists');
  t.is((await catalog.list(tenantId, {}, { page: 1, perPage: 10 })).total, 1);
});
