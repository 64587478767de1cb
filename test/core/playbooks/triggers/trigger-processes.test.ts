// Exactly one run per playbook per event with several worker PROCESSES on one database,
// and across a restart: each process runs the trigger consumer; the durable cursor and
// the (playbook, event) key keep every event to one run.
import test from 'ava';
import { startWorker as startWorkerProcess } from '../../../_helpers/harness/worker-process.ts';
import { createTestApp, type TestApp } from '../../../_helpers/harness/test-app.ts';
import { eventually } from '../../../_helpers/harness/eventually.ts';

const startWorker = (databaseUrl: string) =>
  startWorkerProcess(databaseUrl, { playbooks: { pollIntervalMs: 50 }, executors: { pollIntervalMs: 50 }, events: { consumerLeaseMs: 1000 } });

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(async () => t0?.close());

test.serial('two worker processes, then a restart: every finding.new starts exactly one run of the matching playbook', async (t) => {
  t.timeout(150_000);
  const { token } = await t0.tenant();
  const call = async (url: string, payload: unknown) => {
    const res = await t0.request('POST', url, { token, payload });
    if (res.statusCode >= 300) throw new Error(res.raw);
    return res.body.data;
  };
  const asset = (await call('/api/assets', { name: 'shop.example.com', type: 'domain' })).id;
  await call('/api/actions', { name: 'noop', type: 'script', executor: 'local', config: { source: 'return 1' } });
  const pb = (await call('/api/playbooks', { name: 'on-high', version: '1.0.0', trigger: { event: 'finding.new', conditions: { severity: { gte: 'high' } } }, steps: [{ id: 'one', name: 'One', type: 'action', action_ref: 'noop', parameters: {} }] })).id;
  const workers = [startWorker(t0.database.url), startWorker(t0.database.url)];
  t.teardown(() => workers.forEach((w) => w.child.exitCode === null && w.child.kill('SIGKILL')));
  await Promise.all(workers.map((w) => w.ready));
  const finding = (i: number, vector: string) => call('/api/findings', { asset_id: asset, title: `Finding ${i}`, cvss_vector: vector });
  const HIGH = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
  const LOW = 'CVSS:3.1/AV:N/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N';
  for (let i = 0; i < 12; i++) await finding(i, i % 3 === 2 ? LOW : HIGH);
  const runsFor = async () => (await t0.ctx.db('playbook_runs').where({ playbook_id: pb }).select('trigger_event_id', 'status')) as Array<{ trigger_event_id: number; status: string }>;
  await eventually(async () => (await runsFor()).filter((r) => r.status === 'completed').length === 8, 60_000);
  // Restart: one worker stops, events arrive, a new worker starts.
  workers[0]!.child.kill('SIGTERM');
  await workers[0]!.exited;
  for (let i = 12; i < 18; i++) await finding(i, HIGH);
  workers.push(startWorker(t0.database.url));
  await workers[2]!.ready;
  const runs = await eventually(async () => {
    const r = await runsFor();
    return r.length >= 14 && r.every((x) => x.status === 'completed') ? r : undefined;
  }, 60_000);
  await new Promise((r) => setTimeout(r, 1000));
  const final = await runsFor();
  t.is(final.length, 14, 'one run for each of the 14 high findings, none for the low ones');
  t.is(new Set(final.map((r) => r.trigger_event_id)).size, 14);
  t.is(runs.length, 14);
  const highEvents = (await t0.ctx.db('events').where({ kind: 'finding.new' }).select('id', 'data')).filter((e: { data: string }) => JSON.parse(e.data).severity !== 'low');
  t.deepEqual(final.map((r) => Number(r.trigger_event_id)).sort((x, y) => x - y), highEvents.map((e: { id: number }) => Number(e.id)).sort((x: number, y: number) => x - y));
});
