// Crash case: an action run. The run a killed worker had started is never started again
// (it may have had effects): it ends `worker_lost` even with retries left. Runs finished
// before the crash stay as they were; runs queued while no worker lived run exactly once.
import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { eventsOf } from '../../_helpers/harness/scan-helpers.ts';
import { writeScripts } from '../../core/playbooks/runs/playbook-fixture.ts';
import { assertCounted, crashWorld, tally, type CrashWorld } from './crash-world.ts';
import { executableRuns } from './executable-runs.ts';

const scriptsDir = mkdtempSync(join(tmpdir(), 'rampart-crash-action-'));
const marker = join(scriptsDir, 'runs.log');
// slow.js answers after 3 s: the copy orphaned by the killed worker ends by itself.
writeScripts(scriptsDir, marker, 3000);
let w: CrashWorld;
test.before(async () => {
  w = await crashWorld({ executors: { local: { scriptsDir } } });
});
test.after.always(async () => {
  await w?.close();
  rmSync(scriptsDir, { recursive: true, force: true });
});

test('SIGKILL mid action run: the started run ends worker_lost and ran once; every other run ran exactly once', async (t) => {
  const action = async (name: string, script: string) =>
    (await w.call('POST', '/api/actions', { name, type: 'remediation', executor: 'local', config: { target: script }, parameters: [{ name: 'note', type: 'string', required: false }], retry: { max_attempts: 3, backoff_seconds: 0 } })).id as string;
  const trigger = async (id: string, note: string) => (await w.call('POST', `/api/actions/${id}/trigger`, { parameters: { note } })).execution_id as string;
  const status = async (id: string) => w.call('GET', `/api/actions/executions/${id}`);
  const until = (id: string, s: string) => eventually(async () => ((await status(id)).status === s ? status(id) : undefined), 30_000);
  const ok = await action('ok', 'ok.js');
  const slow = await action('slow', 'slow.js');

  const first = await w.worker();
  const before = [await trigger(ok, 'before-1'), await trigger(ok, 'before-2')];
  for (const id of before) await until(id, 'completed');
  const victim = await trigger(slow, 'victim');
  await eventually(async () => executableRuns(marker).some((r) => r.executionId === victim), 30_000);
  t.is((await status(victim)).status, 'running');
  await first.crash();

  const queued = [];
  for (let i = 0; i < 4; i++) queued.push(await trigger(ok, `queued-${i}`));
  await w.worker();
  const lost = await until(victim, 'failed');
  t.is(lost.error.code, 'worker_lost');
  t.is(lost.attempt, 1, 'retries were left, but a started run is not repeated');
  for (const id of queued) t.is((await until(id, 'completed')).attempt, 1);

  const all = [...before, victim, ...queued];
  assertCounted(t, tally(executableRuns(marker).map((r) => r.executionId)), all, 1, 'executable runs per execution id');
  const finished = [...(await eventsOf(w.app, 'action.completed')), ...(await eventsOf(w.app, 'action.failed'))];
  assertCounted(t, tally(finished.map((d) => d.execution_id as string)), all, 1, 'action.completed|failed events per execution id');
  t.deepEqual(w.workerErrors(), []);
});
