import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { createEngine, type Engine } from './engine-fixture.ts';

// A backlog of runs of one action drained by concurrent claims and settles: on MariaDB the
// per-action lease check and the settling writes meet on the same rows, and a deadlock
// victim must be retried, never left to lapse into worker_lost.
let app: TestApp;
let engine: Engine;
let tenantId: string;

test.before(async () => {
  app = await createTestApp();
  engine = createEngine(app, { concurrency: 4, perActionConcurrency: 64, leaseMs: 60_000, pollIntervalMs: 5 });
  tenantId = (await app.tenant()).tenantId;
  engine.behaviours.set('noop', async () => ({ status: 'completed', output: {} }));
});

test.after.always(async () => {
  await engine.runtime.worker.stop();
  await app.close();
});

test('120 queued runs of one action drain with every run completed exactly once', async (t) => {
  const a = engine.action(tenantId, { config: { behaviour: 'noop' } });
  const ids: string[] = [];
  for (let i = 0; i < 120; i++) ids.push((await engine.runtime.executions.trigger({ tenantId, userId: null, tokenId: null }, a.actionId, { parameters: {} })).execution.execution_id);
  engine.runtime.worker.start();
  const rows = await eventually(async () => {
    const r = (await app.ctx.db('action_executions').whereIn('id', ids).select('id', 'status', 'attempt', 'error')) as Array<{ status: string; attempt: number; error: string | null }>;
    return r.every((x) => x.status !== 'pending' && x.status !== 'running') ? r : undefined;
  }, 60_000);
  t.deepEqual([...new Set(rows.map((r) => r.status))], ['completed'], JSON.stringify(rows.filter((r) => r.status !== 'completed').slice(0, 3)));
  t.true(rows.every((r) => r.attempt === 1));
  t.is(engine.contexts.filter((c) => ids.includes(c.executionId)).length, 120);
});
