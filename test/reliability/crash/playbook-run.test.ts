// Crash case: a playbook run. A killed worker was running step s2's action; another
// worker continues the run from its step rows: s2's action is failed `worker_lost`, not
// triggered again, s3 runs once, and a run started while no worker lived runs whole.
import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { actionStep, writeScripts } from '../../core/playbooks/runs/playbook-fixture.ts';
import { assertCounted, crashWorld, tally, type CrashWorld } from './crash-world.ts';
import { executableRuns } from './executable-runs.ts';

const scriptsDir = mkdtempSync(join(tmpdir(), 'rampart-crash-playbook-'));
const marker = join(scriptsDir, 'runs.log');
writeScripts(scriptsDir, marker, 3000);
let w: CrashWorld;
test.before(async () => {
  w = await crashWorld({ executors: { local: { scriptsDir } } });
});
test.after.always(async () => {
  await w?.close();
  rmSync(scriptsDir, { recursive: true, force: true });
});

test('SIGKILL mid playbook run: the run completes on a new worker, every step ran at most once', async (t) => {
  const action = async (name: string, script: string) =>
    (await w.call('POST', '/api/actions', { name, type: 'remediation', executor: 'local', config: { target: script }, parameters: [{ name: 'note', type: 'string', required: false }] })).id as string;
  const ok = await action('ok', 'ok.js');
  const slow = await action('slow', 'slow.js');
  const playbook = async (name: string, steps: unknown[]) =>
    (await w.call('POST', '/api/playbooks', { name, version: '1.0.0', trigger: { event: 'manual', conditions: {} }, on_failure: 'continue', steps })).id as string;
  const crashing = await playbook('crashing', [actionStep('s1', ok, { note: 'c1' }, 's2'), actionStep('s2', slow, { note: 'c2' }, 's3'), actionStep('s3', ok, { note: 'c3' })]);
  const plain = await playbook('plain', [actionStep('a', ok, { note: 'p1' }, 'b'), actionStep('b', ok, { note: 'p2' })]);
  const run = async (id: string) => (await w.call('POST', `/api/playbooks/${id}/run`, {})).execution_id as string;
  const until = (id: string) =>
    eventually(async () => {
      const v = await w.call('GET', `/api/playbooks/executions/${id}`);
      return ['completed', 'failed'].includes(v.status) ? v : undefined;
    }, 30_000);

  const first = await w.worker();
  const victim = await run(crashing);
  await eventually(async () => executableRuns(marker).some((r) => r.params.note === 'c2'), 30_000);
  t.is((await w.call('GET', `/api/playbooks/executions/${victim}`)).status, 'running');
  await first.crash();
  const later = await run(plain);
  await w.worker();

  const done = await until(victim);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  t.is((await until(later)).status, 'completed');
  const steps = await w.call('GET', `/api/playbooks/executions/${victim}/steps`);
  t.deepEqual(steps.map((s: any) => `${s.step_id}:${s.status}`), ['s1:completed', 's2:failed', 's3:completed']);
  t.is(steps[1].error.code, 'worker_lost', 'the action running in the dead process is failed, not repeated');
  const laterSteps = await w.call('GET', `/api/playbooks/executions/${later}/steps`);
  t.deepEqual(laterSteps.map((s: any) => `${s.step_id}:${s.status}`), ['a:completed', 'b:completed']);

  // Counted: step rows per (run, step), action runs per step, executable runs per action run, run events.
  const db = w.app.ctx.db;
  const stepRows = await db('playbook_step_runs').whereIn('run_id', [victim, later]).select('run_id', 'step_id', 'action_execution_id');
  assertCounted(t, tally(stepRows.map((s: any) => `${s.run_id}/${s.step_id}`)), [...['s1', 's2', 's3'].map((s) => `${victim}/${s}`), `${later}/a`, `${later}/b`], 1, 'step rows per run and step');
  const executions = stepRows.map((s: any) => s.action_execution_id as string);
  const actionRuns = await db('action_executions').whereIn('id', executions).select('id', 'status');
  t.is(actionRuns.length, executions.length, 'one action run per step');
  t.true(actionRuns.every((r: any) => ['completed', 'failed'].includes(r.status)), 'every action run ended');
  const ran = tally(executableRuns(marker).map((r) => r.executionId));
  assertCounted(t, ran, executions, 1, 'executable runs per action run');
  const runEvents = (await db('events').whereIn('kind', ['playbook.started', 'playbook.completed', 'playbook.failed']).select('kind', 'data')).map((e: any) => `${JSON.parse(e.data).execution_id} ${e.kind}`);
  assertCounted(t, tally(runEvents), [victim, later].flatMap((id) => [`${id} playbook.started`, `${id} playbook.completed`]), 1, 'playbook events per run');
  t.deepEqual(w.workerErrors(), []);
});
