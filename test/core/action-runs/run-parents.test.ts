import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { createEngine, type Engine } from './engine-fixture.ts';
import { newId } from '../../../core/ids.ts';

// What a parent of action runs (a playbook step) relies on: idempotent triggers, pinned
// versions, plans that store nothing, and a finish hook inside the ending transaction.
let app: TestApp;
let engine: Engine;
let tenantId: string;
const who = () => ({ tenantId, userId: null, tokenId: null });
const finished: Array<{ id: string; status: string; parent: string | null; inTrx: boolean }> = [];

test.before(async () => {
  app = await createTestApp();
  engine = createEngine(app, { leaseMs: 1000 });
  tenantId = (await app.tenant()).tenantId;
  engine.runtime.hooks.onFinished('playbook_step', async (row, trx) => {
    // Visible inside the transaction: the row already has its final state.
    const inside = await trx('action_executions').where({ id: row.id }).first();
    finished.push({ id: row.id, status: row.status, parent: row.parent_id, inTrx: inside.status === row.status });
  });
  engine.behaviours.set('ok', async () => ({ status: 'completed', output: { ok: true } }));
  engine.runtime.worker.start();
});

test.after.always(async () => {
  await engine.runtime.worker.stop();
  await app.close();
});

const count = async () => Number((await app.ctx.db('action_executions').where({ tenant_id: tenantId }).count({ n: '*' }))[0]!.n);

test.serial('a trigger with an execution id is idempotent, even when two race', async (t) => {
  const a = engine.action(tenantId);
  const id = newId('exe');
  const before = await count();
  const [one, two] = await Promise.all([
    engine.runtime.executions.trigger(who(), a.actionId, { parameters: {} }, { kind: 'playbook_step', id: 'psr_1' }, { executionId: id }),
    engine.runtime.executions.trigger(who(), a.actionId, { parameters: {} }, { kind: 'playbook_step', id: 'psr_1' }, { executionId: id }),
  ]);
  t.is(one.execution.execution_id, id);
  t.is(two.execution.execution_id, id);
  const again = await engine.runtime.executions.trigger(who(), a.actionId, { parameters: {} }, { kind: 'playbook_step', id: 'psr_1' }, { executionId: id });
  t.is(again.execution.execution_id, id);
  t.is(await count(), before + 1);
  const hook = await eventually(async () => finished.find((f) => f.id === id));
  t.deepEqual(hook, { id, status: 'completed', parent: 'psr_1', inTrx: true });
  const triggered = (await app.ctx.db('events').where({ kind: 'action.triggered' })).filter((e: { data: string }) => JSON.parse(e.data).execution_id === id);
  t.is(triggered.length, 1);
});

test.serial('a pinned version runs that version; an unknown one is refused', async (t) => {
  const a = engine.action(tenantId, { version: '1.2.0' });
  const run = await engine.runtime.executions.trigger(who(), a.actionId, { parameters: {} }, null, { version: '1.2.0' });
  t.is(run.execution.action_version, '1.2.0');
  await t.throwsAsync(engine.runtime.executions.trigger(who(), a.actionId, { parameters: {} }, null, { version: '9.9.9' }));
});

test.serial('plan answers the dry run and stores nothing', async (t) => {
  engine.behaviours.set('planner', async (ctx) => ({ status: 'completed', output: {}, plan: { would: ctx.dryRun } }));
  const a = engine.action(tenantId, { config: { behaviour: 'planner' } });
  const before = await count();
  const planned = await engine.runtime.executions.plan(who(), a.actionId, { parameters: {} });
  t.deepEqual(planned, { status: 'completed', plan: { executor: 'remote', would: true }, error: null, action: { id: a.actionId, name: a.name, version: '1.0.0' } });
  t.is(await count(), before);
});

test.serial('runs without a parent call no hook; a cancelled child calls its parent hook', async (t) => {
  const a = engine.action(tenantId);
  const n = finished.length;
  const plain = await engine.runtime.executions.trigger(who(), a.actionId, { parameters: {} });
  await eventually(async () => (await engine.runtime.executions.get(tenantId, plain.execution.execution_id)).status === 'completed');
  t.is(finished.length, n);
  await engine.runtime.worker.stop();
  const child = await engine.runtime.executions.trigger(who(), a.actionId, { parameters: {} }, { kind: 'playbook_step', id: 'psr_2' });
  await engine.runtime.control.cancel(tenantId, child.execution.execution_id);
  t.like(finished.at(-1), { id: child.execution.execution_id, status: 'cancelled', parent: 'psr_2', inTrx: true });
  engine.runtime.worker.start();
});
