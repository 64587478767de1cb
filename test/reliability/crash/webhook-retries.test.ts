// Crash case: a webhook retry schedule. The receiver fails each event's first two
// attempts; the worker is killed while every delivery waits for its second attempt,
// and more events arrive while no worker lives. A new worker finishes the schedule:
// each event is accepted (2xx) exactly once, after exactly three attempts.
import test from 'ava';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';
import { assertCounted, crashWorld, tally, type CrashWorld } from './crash-world.ts';

const FAILURES = 2;
let w: CrashWorld;
let receiver: HttpsReceiver;
test.before(async () => {
  const { ca } = await sharedTestCertificates();
  // The second attempt is due 2 s after the first: the kill lands between attempts, never during one.
  w = await crashWorld({ outbound: { caCerts: [ca.certPem] }, webhooks: { retryScheduleSeconds: [2, 0.2, 0.2] } });
  receiver = await startHttpsReceiver();
});
test.after.always(async () => {
  await w?.close();
  await receiver?.close();
});

test('SIGKILL between retries: every event is accepted exactly once, after exactly its scheduled attempts', async (t) => {
  const seen = new Map<string, number>();
  const accepted: string[] = [];
  receiver.respond((req) => {
    const id = String(JSON.parse(req.body).id);
    seen.set(id, (seen.get(id) ?? 0) + 1);
    if (seen.get(id)! <= FAILURES) return { status: 503 };
    accepted.push(id);
    return { status: 200 };
  });
  const hook = (await w.call('POST', '/api/webhooks', { name: 'crash', url: `${receiver.origin}/hook`, events: ['asset.created'] })).id as string;
  const asset = (i: number) => w.call('POST', '/api/assets', { name: `crash-${i}.example.com`, type: 'domain' });
  const deliveries = () => w.app.ctx.db('webhook_deliveries').where({ webhook_id: hook }).select('id', 'event_id', 'status', 'attempt_count');

  const first = await w.worker();
  for (let i = 0; i < 5; i++) await asset(i);
  await eventually(async () => {
    const rows = await deliveries();
    return rows.length === 5 && rows.every((d: any) => d.status === 'retried' && Number(d.attempt_count) === 1);
  }, 30_000);
  await first.crash();
  t.is(accepted.length, 0);
  for (let i = 5; i < 8; i++) await asset(i);
  await w.worker();

  const rows = await eventually(async () => {
    const r = await deliveries();
    return r.length === 8 && r.every((d: any) => d.status === 'delivered') ? r : undefined;
  }, 30_000);
  const events = (await w.app.ctx.db('events').where({ kind: 'asset.created', tenant_id: w.tenantId }).select('id')).map((e: any) => String(e.id));
  t.is(events.length, 8);
  assertCounted(t, tally(rows.map((d: any) => String(d.event_id))), events, 1, 'deliveries per event id');
  assertCounted(t, tally(accepted), events, 1, 'deliveries accepted (2xx) per event id');
  assertCounted(t, tally(receiver.requests.map((r) => String(JSON.parse(r.body).id))), events, FAILURES + 1, 'requests received per event id');
  const attempts = await w.app.ctx.db('webhook_attempts').whereIn('delivery_id', rows.map((d: any) => d.id)).count({ n: '*' }).first();
  t.is(Number(attempts!.n), receiver.requests.length, 'every request received is a recorded attempt');
  t.deepEqual(w.workerErrors(), []);
});
