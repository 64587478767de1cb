import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { shareSlots } from '../../../core/action-runs/tenant-share.ts';
import { createEngine, type Engine } from './engine-fixture.ts';

// Issue 25 item 3: one tenant's busy runs must not hold every executor slot. The bound
// (docs/design/actions.md, "Fair executor slots"): another tenant's run never waits for a
// busy run of the first tenant to end.
let app: TestApp;
let engine: Engine;
let release!: () => void;
const gate = new Promise<void>((r) => (release = r));

test.before(async () => {
  app = await createTestApp();
  engine = createEngine(app, { concurrency: 4, perActionConcurrency: 64, leaseMs: 60_000, pollIntervalMs: 20 });
  engine.behaviours.set('busy', async () => {
    await gate;
    return { status: 'completed', output: {} };
  });
  engine.behaviours.set('trivial', async () => ({ status: 'completed', output: {} }));
  engine.runtime.worker.start();
});

test.after.always(async () => {
  release();
  await engine.runtime.worker.stop();
  await app.close();
});

const trigger = async (tenantId: string, actionId: string) =>
  (await engine.runtime.executions.trigger({ tenantId, userId: null, tokenId: null }, actionId, { parameters: {} })).execution.execution_id;

const statuses = async (ids: string[]) => (await app.ctx.db('action_executions').whereIn('id', ids).select('status')).map((r: { status: string }) => r.status);

test.serial('shares by tier: standard half the slots, premium two thirds, enterprise three quarters, never less than one', (t) => {
  t.deepEqual([shareSlots(4, 'standard'), shareSlots(4, 'premium'), shareSlots(4, 'enterprise')], [2, 2, 3]);
  t.deepEqual([shareSlots(16, 'standard'), shareSlots(16, 'premium'), shareSlots(16, 'enterprise')], [8, 10, 12]);
  t.is(shareSlots(1, 'standard'), 1);
});

test.serial('executors.tenantShares overrides a tier\'s share (1: a lone tenant may take every slot); the other tiers keep theirs', (t) => {
  t.is(shareSlots(4, 'standard', { standard: 1 }), 4);
  t.is(shareSlots(4, 'premium', { standard: 1 }), 2);
  t.is(shareSlots(8, 'enterprise', { enterprise: 0.25 }), 2);
  t.is(shareSlots(4, 'standard', { standard: 0.1 }), 1, 'never less than one slot');
});

test.serial('a tenant with busy runs holds at most its share; another tenant\'s trivial run ends while they all still run', async (t) => {
  const hog = (await app.tenant({ tier: 'standard' })).tenantId;
  const other = (await app.tenant({ tier: 'standard' })).tenantId;
  const busy = engine.action(hog, { config: { behaviour: 'busy' }, timeoutSeconds: 600 });
  const hogs: string[] = [];
  for (let i = 0; i < 4; i++) hogs.push(await trigger(hog, busy.actionId));
  await eventually(async () => ((await statuses(hogs)).filter((s) => s === 'running').length === 2 ? true : undefined), 10_000);
  const started = Date.now();
  const trivial = await trigger(other, engine.action(other, { config: { behaviour: 'trivial' } }).actionId);
  await eventually(async () => ((await statuses([trivial]))[0] === 'completed' ? true : undefined), 10_000);
  const waited = Date.now() - started;
  const hogStates = await statuses(hogs);
  t.is(hogStates.filter((s) => s === 'running').length, 2, 'the hog still holds exactly its share: 2 of 4 slots');
  t.is(hogStates.filter((s) => s === 'pending').length, 2, 'its other runs wait although slots are free');
  t.log(`the other tenant's trivial run ended ${waited} ms after its trigger, with every busy run still running`);
  release();
  await eventually(async () => ((await statuses(hogs)).every((s) => s === 'completed') ? true : undefined), 10_000);
  t.pass();
});

test.serial('with executors.tenantShares.standard = 1 a lone standard tenant runs on every slot', async (t) => {
  await engine.runtime.worker.stop();
  let open!: () => void;
  const gate2 = new Promise<void>((r) => (open = r));
  const solo = createEngine(app, { concurrency: 4, perActionConcurrency: 64, leaseMs: 60_000, pollIntervalMs: 20, tenantShares: { standard: 1 } });
  solo.behaviours.set('busy', async () => {
    await gate2;
    return { status: 'completed', output: {} };
  });
  solo.runtime.worker.start();
  t.teardown(async () => {
    open();
    await solo.runtime.worker.stop();
  });
  const tenant = (await app.tenant({ tier: 'standard' })).tenantId;
  const busy = solo.action(tenant, { config: { behaviour: 'busy' }, timeoutSeconds: 600 });
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push((await solo.runtime.executions.trigger({ tenantId: tenant, userId: null, tokenId: null }, busy.actionId, { parameters: {} })).execution.execution_id);
  await eventually(async () => ((await statuses(ids)).filter((s) => s === 'running').length === 4 ? true : undefined), 10_000);
  open();
  await eventually(async () => ((await statuses(ids)).every((s) => s === 'completed') ? true : undefined), 10_000);
  t.pass();
});
