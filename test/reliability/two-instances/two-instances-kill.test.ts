import test from 'ava';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { countBy, ok, TwoInstances, twoInstancesAvailable, VECTOR } from './cluster-fixture.ts';

// The fourth promise of docs/operations.md "More than one machine" (the others are in
// two-instances.test.ts): with two `--role api,worker` processes on one MariaDB and one
// Redis, one killed mid-load loses nothing. A cluster of its own, since it ends one of them,
// started on a copy of the migrated database: the migrations racing on a new database are
// two-instances.test.ts's start-up (and migrate-together.test.ts's subject).

const up = await twoInstancesAvailable('two-instances-kill');
const run = up ? test.serial : test.serial.skip;
const f = new TwoInstances();

test.before(async () => {
  if (up) await f.start({ migrated: true });
});

test.after.always(async () => {
  await f.close();
});

run('one instance SIGKILLed mid-load loses nothing: every delivery arrives, every run ends, runs in flight there end worker_lost and never run twice', async (t) => {
  const s = await f.setup('kill', 'slow.js');
  const bPid = String(f.B.service.child.pid);
  const earlier = f.markerLines().length;
  const lines = () => f.markerLines().slice(earlier);
  // Load through both until a run is executing under B, then kill B while work is queued everywhere.
  const load = f.queueWork(s.token, { findings: 60, runs: 12, scans: 2 }, s.actionId, s.assetId);
  // A run whose executable is still alive under B (its script outlives the poll by up to 2.5 s): killed
  // after its script ended, B could have recorded it completed already, and nothing would be lost to see.
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  await eventually(async () => load.made.findings.length >= 20 && lines().some((l) => l[2] === bPid && alive(Number(l[1]))), 30_000);
  f.B.service.child.kill('SIGKILL');
  await f.B.service.exited;
  const beforeKill = load.made.findings.length;
  await load.done; // the rest of the load fails over to A
  // Its executables are in their own process groups and outlive it: stop them (their results are lost with B).
  for (const l of lines().filter((l) => l[2] === bPid)) {
    try {
      process.kill(Number(l[1]), 'SIGKILL');
    } catch {
      /* already ended */
    }
  }
  // More load, through the survivor only.
  const onlyA = { findings: [] as string[], runs: [] as string[] };
  for (let i = 0; i < 10; i++) onlyA.findings.push((await ok(f.A.request('POST', '/api/findings', s.token, { asset_id: s.assetId, title: `After kill ${i}`, cvss_vector: VECTOR }))).id);
  for (let i = 0; i < 3; i++) onlyA.runs.push((await ok(f.A.request('POST', `/api/actions/${s.actionId}/trigger`, s.token, { parameters: {} }), 202)).execution_id);

  // Nothing lost: every stored event is delivered, every stored run and scan ends.
  const events = (await f.sql('events').where({ tenant_id: s.tenantId, kind: 'finding.new' }).select('id')).map((e: { id: number }) => String(e.id));
  t.true(events.length >= 10 + 60, `${beforeKill} findings made before the kill, ${events.length} events in all`);
  await eventually(async () => {
    const got = new Set(s.r.requests.map((q) => String(JSON.parse(q.body).id)));
    return events.every((id) => got.has(id));
  }, 40_000);
  const runs = (await f.sql('action_executions').where({ tenant_id: s.tenantId }).select('id')).map((r: { id: string }) => r.id);
  t.true(runs.length >= 3);
  const ended = await eventually(async () => {
    const all = await Promise.all(runs.map((id) => f.execution(f.A, s.token, id)));
    return all.every((e) => ['completed', 'failed'].includes(e.status)) && all;
  }, 40_000);
  const scans = await eventually(async () => {
    const rows = await f.sql('scans').where({ tenant_id: s.tenantId }).select('id', 'status');
    return rows.every((r: { status: string }) => ['completed', 'failed'].includes(r.status)) && rows;
  }, 40_000);
  t.true(scans.every((r: { status: string }) => r.status === 'completed'), JSON.stringify(scans));

  const ranBy = new Map(lines().map((l) => [l[0]!, l[2]!]));
  const ran = countBy(lines().map((l) => l[0]!));
  for (const e of ended) {
    const id = e.execution_id as string;
    const seen = `${id}: ${JSON.stringify({ status: e.status, error: e.error, attempt: e.attempt, ranBy: ranBy.get(id), ran: ran.get(id) })}`;
    if (e.status === 'completed') {
      t.is(ran.get(id), 1, `completed and started exactly once: ${seen}`);
    } else {
      // Claimed by B when it died: ended worker_lost (whether or not its executable had been started), never started again.
      t.like(e, { status: 'failed', error: { code: 'worker_lost' }, attempt: 1 }, seen);
      t.true((ran.get(id) ?? 0) <= 1 && (ranBy.get(id) ?? bPid) === bPid, `at most once, and only in the killed process: ${seen}`);
    }
    if (ranBy.get(id) === bPid && e.status === 'completed') t.log(`${id} completed in B before the kill`);
  }
  const lost = ended.filter((e: { error?: { code: string } }) => e.error?.code === 'worker_lost').length;
  t.true(lost >= 1, 'the run seen executing under B when it was killed ended worker_lost');
  const dupes = [...countBy(s.r.requests.map((q) => String(JSON.parse(q.body).id))).values()].filter((c) => c > 1).length;
  // A delivery in flight in the killed process may arrive twice (at-least-once); no more than that.
  t.true([...countBy(s.r.requests.map((q) => String(JSON.parse(q.body).id))).values()].every((c) => c <= 2));
  t.log(`${events.length} events delivered (${dupes} redelivered after the kill), ${ended.length} runs (${lost} worker_lost), ${scans.length} scans`);
});
