import test from 'ava';
import { startWorker as startWorkerProcess } from '../../../_helpers/harness/worker-process.ts';
import { eventually } from '../../../_helpers/harness/eventually.ts';
import { runRepository } from '../../../../core/playbooks/runs/run-repository.ts';
import { executionIdFor } from '../../../../core/playbooks/runs/run-rows.ts';
import { newId } from '../../../../core/ids.ts';
import { actionStep, playbookWorld, type PlaybookWorld } from './playbook-fixture.ts';

let w: PlaybookWorld;
let ok: string;
let slow: string;

test.before(async () => {
  w = await playbookWorld({ executors: { leaseMs: 1000, pollIntervalMs: 50 }, playbooks: { leaseMs: 1000, pollIntervalMs: 50 } }, 4000);
  // slow.js answers after 4 s: the copy orphaned by the killed worker ends by itself.
  ok = await w.action('ok', 'ok.js', ['note']);
  slow = await w.action('slow', 'slow.js', ['note']);
});
test.after.always(async () => w?.close());

/** A Rampart worker PROCESS (`--role worker`) on the test app's database, with this world's settings. */
function startWorker() {
  return startWorkerProcess(w.app.database.url, {
    executors: { local: { scriptsDir: w.scriptsDir }, leaseMs: 1000, pollIntervalMs: 50 },
    playbooks: { leaseMs: 1000, pollIntervalMs: 50 },
  });
}

const ranPerExecution = () => {
  const counts = new Map<string, number>();
  for (const r of w.runsOf()) counts.set(r.executionId, (counts.get(r.executionId) ?? 0) + 1);
  return counts;
};

test.serial('a worker process SIGKILLed mid-run: another worker finishes the run from its rows, and no step action runs twice', async (t) => {
  const pb = await w.playbook({
    on_failure: 'continue',
    steps: [actionStep('s1', ok, { note: 'crash-1' }, 's2'), actionStep('s2', slow, { note: 'crash-2' }, 's3'), actionStep('s3', ok, { note: 'crash-3' })],
  });
  const worker = startWorker();
  t.teardown(() => {
    if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  });
  await worker.ready;
  const id = await w.run(pb);
  // The worker process ran s1 and is now running s2's action: kill it there.
  await eventually(async () => w.runsOf().some((r) => r.params.note === 'crash-2'), 30_000);
  worker.child.kill('SIGKILL');
  await worker.exited;
  const killed = w.runsOf().find((r) => r.params.note === 'crash-2')!;
  t.is((await w.view(id)).status, 'running');
  w.startWorkers();
  const done = await w.until(id, ['completed', 'failed'], 30_000);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  const steps = await w.steps(id);
  t.deepEqual(steps.map((s) => `${s.step_id}:${s.status}`), ['s1:completed', 's2:failed', 's3:completed']);
  t.is(steps[1].error.code, 'worker_lost', 'the action that was running in the dead process is failed, not repeated');
  t.is(steps[1].action_execution_id, killed.executionId);
  const counts = ranPerExecution();
  for (const s of steps) t.is(counts.get(s.action_execution_id), 1, `${s.step_id}'s action ran exactly once`);
  t.is(w.runsOf().filter((r) => String(r.params.note).startsWith('crash-')).length, 3);
  t.deepEqual(await w.events(id), ['playbook.started:running', 'playbook.completed:completed']);
});

test.serial('a worker that died holding a run (after writing a step row, before or after triggering its action): the lease lapses and the run is continued without a second trigger', async (t) => {
  await w.app.ctx.background.playbooks.stop();
  const pb = await w.playbook({ steps: [actionStep('a', ok, { note: 'lapse-a' }, 'b'), actionStep('b', ok, { note: 'lapse-b' })] });
  const id = await w.run(pb);
  const db = w.app.ctx.db;
  // The dead worker: it claimed the run, wrote step a's row and triggered its action, then died.
  t.deepEqual(await runRepository.claim(db, { token: 'dead-worker', now: Date.now(), leaseMs: 400, limit: 10 }), [id]);
  const stepRunId = newId('pbs');
  await runRepository.insertStep(db, { id: stepRunId, run_id: id, tenant_id: w.tenantId, step_id: 'a', step_name: 'a', type: 'action', status: 'running', action_execution_id: executionIdFor(stepRunId), input: JSON.stringify({ note: 'lapse-a' }), output: null, error: null, seq: 1, started_at: Date.now(), completed_at: null });
  await w.app.ctx.services.executions.trigger({ tenantId: w.tenantId, userId: null, tokenId: null }, ok, { parameters: { note: 'lapse-a' } }, { kind: 'playbook_step', id: stepRunId }, { executionId: executionIdFor(stepRunId) });
  t.is(await w.app.ctx.background.playbooks.runDue(), 0, 'held by the dead worker until its lease lapses');
  w.app.ctx.background.playbooks.start();
  const done = await w.until(id, ['completed', 'failed']);
  t.is(done.status, 'completed');
  const steps = await w.steps(id);
  t.is(steps[0].action_execution_id, executionIdFor(stepRunId));
  t.is(w.runsOf().filter((r) => r.params.note === 'lapse-a').length, 1);
  t.is(w.runsOf().filter((r) => r.params.note === 'lapse-b').length, 1);
  t.is((await db('action_executions').where({ parent_kind: 'playbook_step' }).whereIn('parent_id', steps.map((s: { action_execution_id: string }) => `pbs_${s.action_execution_id.slice(4)}`))).length, 2);
});
