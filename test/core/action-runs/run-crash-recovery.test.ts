import test from 'ava';
import { startWorker as startWorkerProcess } from '../../_helpers/harness/worker-process.ts';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';

const scriptsDir = mkdtempSync(join(tmpdir(), 'rampart-crash-'));
const marker = join(scriptsDir, 'runs.log');
for (const [name, wait] of [['slow.js', 60_000], ['quick.js', 0]] as const) {
  writeFileSync(join(scriptsDir, name), `#!/usr/bin/env node
require('fs').appendFileSync(${JSON.stringify(marker)}, process.env.RAMPART_EXECUTION_ID + ' ' + process.pid + '\\n');
setTimeout(() => process.stdout.write('{"status":"success","data":{}}'), ${wait});
`);
  chmodSync(join(scriptsDir, name), 0o755);
}

/** A Rampart worker PROCESS (`--role worker`) on the test app's database. */
const startWorker = (databaseUrl: string) => startWorkerProcess(databaseUrl, { executors: { local: { scriptsDir }, leaseMs: 1000, pollIntervalMs: 50 } });

let t0: TestApp;
let token: string;
test.before(async () => {
  t0 = await createTestApp({ executors: { local: { scriptsDir }, leaseMs: 1000, pollIntervalMs: 50 } });
  token = (await t0.tenant()).token;
});
test.after.always(async () => {
  await t0?.ctx.background.actions.stop();
  await t0?.close();
  rmSync(scriptsDir, { recursive: true, force: true });
});

const lines = () => (existsSync(marker) ? readFileSync(marker, 'utf8').trim().split('\n').filter(Boolean) : []);
const action = async (name: string, target: string) =>
  (await t0.request('POST', '/api/actions', { token, payload: { name, type: 'remediation', executor: 'local', config: { target }, retry: { max_attempts: 3, backoff_seconds: 0 } } })).body.data.id as string;
const trigger = async (id: string) => (await t0.request('POST', `/api/actions/${id}/trigger`, { token, payload: { parameters: {} } })).body.data.execution_id as string;
const status = async (id: string) => (await t0.request('GET', `/api/actions/executions/${id}`, { token })).body.data;

test.serial('a worker process SIGKILLed mid-run: the run fails worker_lost and is never run twice; queued runs all run exactly once elsewhere', async (t) => {
  const slow = await action('slow', 'slow.js');
  const quick = await action('quick', 'quick.js');
  const worker = startWorker(t0.database.url);
  t.teardown(() => {
    if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  });
  await worker.ready;
  const victim = await trigger(slow);
  await eventually(async () => lines().some((l) => l.startsWith(victim)), 30_000);
  t.is((await status(victim)).status, 'running');
  worker.child.kill('SIGKILL');
  await worker.exited;
  // The executable was in its own process group: it outlives the worker; stop it.
  const orphan = Number(lines().find((l) => l.startsWith(victim))!.split(' ')[1]);
  try {
    process.kill(orphan, 'SIGKILL');
  } catch {
    /* already gone */
  }
  const queued = [await trigger(quick), await trigger(quick), await trigger(quick)];
  t0.ctx.background.actions.start();
  const lost = await eventually(async () => {
    const s = await status(victim);
    return s.status === 'failed' ? s : undefined;
  }, 20_000);
  t.is(lost.error.code, 'worker_lost');
  t.is(lost.attempt, 1, 'retries left, but a run that may have had effects is not repeated');
  for (const id of queued) t.is((await eventually(async () => ((await status(id)).status === 'completed' ? 'completed' : undefined), 20_000)), 'completed');
  const ran = lines().map((l) => l.split(' ')[0]);
  for (const id of [victim, ...queued]) t.is(ran.filter((r) => r === id).length, 1, `${id} ran exactly once`);
});
