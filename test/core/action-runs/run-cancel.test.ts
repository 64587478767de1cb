import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { createEngine, type Engine } from './engine-fixture.ts';

// Issue 25 item 2, the worker's half: a cancelled run reads `cancelled` within 1 s of the
// cancel (docs/design/actions.md), with a lease and heartbeat far longer than that, and its
// slot stays taken until the executor's own promise settles.
let app: TestApp;
let engine: Engine;
let tenantId: string;

test.before(async () => {
  app = await createTestApp();
  engine = createEngine(app, { concurrency: 4, perActionConcurrency: 64, leaseMs: 60_000, pollIntervalMs: 20, killGraceMs: 200 });
  tenantId = (await app.tenant()).tenantId;
  engine.runtime.worker.start();
});

test.after.always(async () => {
  await engine.runtime.worker.stop();
  await app.close();
});

test.serial('cancel: the run reads cancelled within 1 s; the slot is held until the executor stops', async (t) => {
  let stopped!: () => void;
  const executorStopped = new Promise<void>((r) => (stopped = r));
  let settle!: () => void;
  engine.behaviours.set('slow-to-stop', async (ctx) => {
    await new Promise((r) => ctx.signal.addEventListener('abort', r));
    await new Promise<void>((r) => (settle = r)); // still busy after the abort, until the test lets it go
    stopped();
    return { status: 'failed', output: {} };
  });
  const a = engine.action(tenantId, { config: { behaviour: 'slow-to-stop' }, timeoutSeconds: 600 });
  const { execution } = await engine.runtime.executions.trigger({ tenantId, userId: null, tokenId: null }, a.actionId, { parameters: {} });
  const id = execution.execution_id;
  await eventually(async () => ((await engine.runtime.executions.get(tenantId, id)).status === 'running' ? true : undefined));
  const at = Date.now();
  await engine.runtime.control.cancel(tenantId, id);
  await eventually(async () => ((await engine.runtime.executions.get(tenantId, id)).status === 'cancelled' ? true : undefined), 5000, 10);
  const took = Date.now() - at;
  t.log(`cancelled ${took} ms after the cancel`);
  t.true(took <= 1000, `read cancelled within 1 s (took ${took} ms)`);
  t.is(engine.runtime.worker.inflight, 1, 'the slot is still taken: the executor has not stopped');
  settle();
  await executorStopped;
  await eventually(async () => (engine.runtime.worker.inflight === 0 ? true : undefined));
  t.is(engine.runtime.worker.inflight, 0, 'freed once the executor settled');
});

test.serial('the engine\'s own timeout: the run is recorded timed_out after the grace, and the slot waits for the executor', async (t) => {
  let settle!: () => void;
  engine.behaviours.set('deaf', async (ctx) => {
    await new Promise((r) => ctx.signal.addEventListener('abort', r));
    await new Promise<void>((r) => (settle = r)); // ignores the abort until the test lets it go
    return { status: 'failed', output: {} };
  });
  const a = engine.action(tenantId, { config: { behaviour: 'deaf' }, timeoutSeconds: 1 });
  const { execution } = await engine.runtime.executions.trigger({ tenantId, userId: null, tokenId: null }, a.actionId, { parameters: {} });
  const id = execution.execution_id;
  const ended = await eventually(async () => {
    const e = await engine.runtime.executions.get(tenantId, id);
    return e.status === 'timed_out' ? e : undefined;
  }, 10_000, 10);
  t.is(ended.error?.code, 'timeout');
  t.is(engine.runtime.worker.inflight, 1, 'recorded, but the slot is still taken while the executor runs');
  settle();
  await eventually(async () => (engine.runtime.worker.inflight === 0 ? true : undefined));
  t.is(engine.runtime.worker.inflight, 0);
});
