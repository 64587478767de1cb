import test from 'ava';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { openSse, type SseClient } from '../../_helpers/receivers/sse-client.ts';
import { countBy, ok, SEED, TwoInstances, twoInstancesAvailable, VECTOR } from './cluster-fixture.ts';
import { createTenant } from './instances.ts';

// Two `--role api,worker` processes on one MariaDB database and one Redis. The four
// promises of docs/operations.md "More than one machine", counted from the outside: the
// shared rate limits, SSE from either instance and no job twice here, the instance killed
// mid-load in two-instances-kill.test.ts (its own cluster, so the two files run side by side).

const up = await twoInstancesAvailable('two-instances');
const run = up ? test.serial : test.serial.skip;
const f = new TwoInstances();

test.before(async () => {
  if (up) await f.start();
});

test.after.always(async () => {
  await f.close();
});

run('rate limits are shared exactly: alternating between the instances buys the tier budget once, not twice', async (t) => {
  const { token } = await createTenant(f.A, f.cluster.adminToken, 'standard-tier', 'standard');
  const outcomes: Array<{ via: string; status: number; remaining: number; at: number }> = [];
  const started = Date.now();
  for (let i = 0; i < 40; i++) {
    const via = i % 2 === 0 ? f.A : f.B;
    const res = await via.request('GET', '/api/assets', token);
    outcomes.push({ via: via.name, status: res.status, remaining: Number(res.headers.get('x-ratelimit-remaining')), at: Date.now() });
    if (res.status === 429) {
      t.is(res.body.error.code, 'rate_limited');
      t.truthy(res.headers.get('retry-after'));
    }
  }
  const elapsed = Date.now() - started;
  const allowed = outcomes.filter((o) => o.status === 200);
  t.true(outcomes.every((o) => o.status === 200 || o.status === 429), JSON.stringify(outcomes));
  // Burst 20, then 100/min = one token per 600 ms: at most that many more in the time it took.
  t.true(allowed.length >= 20, `allowed ${allowed.length}`);
  t.true(allowed.length <= 20 + Math.floor(elapsed / 600), `allowed ${allowed.length} in ${elapsed} ms`);
  // The first twenty come from one bucket: Remaining counts down 19..0 across both instances
  // (give or take the tokens refilled meanwhile; two buckets would show 19, 19, 18, 18…).
  outcomes.slice(0, 20).forEach((o, i) => t.true(o.remaining >= 19 - i && o.remaining <= 19 - i + Math.floor((o.at - started) / 600), `request ${i} via ${o.via}: remaining ${o.remaining}`));
  t.true(outcomes.some((o) => o.via === 'A' && o.status === 429) && outcomes.some((o) => o.via === 'B' && o.status === 429), 'both instances refuse');
});

run('SSE clients on either instance see every event, whichever instance produced it', async (t) => {
  const { token } = await createTenant(f.A, f.cluster.adminToken, 'sse', 'enterprise');
  const clients: SseClient[] = [];
  t.teardown(() => clients.forEach((c) => c.close()));
  for (const via of [f.A, f.B]) {
    const c = await openSse(`${via.base}/api/events/stream?events=finding.new&token=${token}`);
    t.is(c.statusCode, 200);
    await c.waitFor((m) => m.some((x) => x.retry !== null));
    clients.push(c);
  }
  const asset = await ok(f.A.request('POST', '/api/assets', token, { name: 'sse.example.com', type: 'domain' }));
  const made: Array<{ via: string; id: string }> = [];
  for (let i = 0; i < 20; i++) {
    const via = f.either();
    const finding = await ok(via.request('POST', '/api/findings', token, { asset_id: asset.id, title: `SSE finding ${i}`, cvss_vector: VECTOR }));
    made.push({ via: via.name, id: finding.id });
  }
  t.true(made.some((m) => m.via === 'A') && made.some((m) => m.via === 'B'), `seed ${SEED} sent to both`);
  const ids = made.map((m) => m.id).sort();
  for (const [i, c] of clients.entries()) {
    const seen = () => c.messages.filter((m) => m.event === 'finding.new').map((m) => JSON.parse(m.data).finding_id as string);
    await c.waitFor(() => seen().length >= ids.length, 20_000);
    t.deepEqual([...seen()].sort(), ids, `client on ${i ? 'B' : 'A'}: every event once`);
    const eventIds = c.messages.filter((m) => m.event === 'finding.new').map((m) => Number(m.id));
    t.deepEqual(eventIds, [...eventIds].sort((x, y) => x - y), 'in event-id order');
  }
});

run('no job runs twice: each delivery per event id once, each action run once, each scan claimed once', async (t) => {
  const s = await f.setup('jobs', 'quick.js');
  const queued = f.queueWork(s.token, { findings: 60, runs: 20, scans: 4 }, s.actionId, s.assetId);
  await queued.done;
  const work = queued.made;
  for (const id of work.runs) await eventually(async () => ['completed', 'failed'].includes((await f.execution(f.either(), s.token, id)).status), 30_000);
  for (const id of work.scans) await eventually(async () => ['completed', 'failed'].includes((await f.A.request('GET', `/api/scan/${id}`, s.token)).body.data.status), 30_000);
  // The port scans add findings (and finding.new events) of their own: every event counts.
  const stored = await f.sql('events').where({ tenant_id: s.tenantId, kind: 'finding.new' }).select('id', 'data');
  const events = stored.map((e: { id: number }) => String(e.id));
  const eventFindings = new Set(stored.map((e: { data: string | object }) => (typeof e.data === 'string' ? JSON.parse(e.data) : e.data).finding_id));
  t.true(work.findings.every((id) => eventFindings.has(id)), 'one event per finding made');
  await s.r.waitFor(events.length, 30_000);
  await new Promise((r) => setTimeout(r, 1000)); // room for a duplicate to show up

  const delivered = countBy(s.r.requests.map((q) => String(JSON.parse(q.body).id)));
  t.deepEqual([...delivered.keys()].sort(), [...events].sort(), 'every event delivered');
  t.deepEqual([...delivered.values()].filter((c) => c !== 1), [], 'each event id delivered exactly once');
  const ran = countBy(f.markerLines().map((l) => l[0]!));
  for (const id of work.runs) {
    t.is(ran.get(id), 1, `${id} ran once`);
    t.is((await f.execution(f.A, s.token, id)).status, 'completed');
  }
  const scanRows = await f.sql('scans').whereIn('id', work.scans).select('id', 'status', 'claims');
  t.deepEqual(scanRows.map((r: { status: string; claims: number }) => [r.status, Number(r.claims)]), work.scans.map(() => ['completed', 1]));
  const scanEvents = countBy((await f.sql('events').where({ tenant_id: s.tenantId, kind: 'scan.completed' }).select('data')).map((e: { data: string | object }) => (typeof e.data === 'string' ? JSON.parse(e.data) : e.data).scan_id));
  for (const id of work.scans) t.is(scanEvents.get(id), 1, `${id} completed once`);
  const workers = countBy(f.markerLines().filter((l) => work.runs.includes(l[0]!)).map((l) => l[2]!));
  t.log(`runs per worker pid: ${JSON.stringify(Object.fromEntries(workers))}; pids A=${f.A.service.child.pid} B=${f.B.service.child.pid}`);
});
