// The delivery worker's local queue: rows are claimed in batches and wait for a slot,
// so a row must never start on a lease that cannot cover its request, and a stopping
// worker gives its queued rows back unsent. Clocks are injected (no waiting on leases).
import test from 'ava';
import { WebhookDeliveryWorker } from '../../../core/webhooks/webhook-delivery-worker.ts';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';

const LEASE_MS = 20_000;
const TIMEOUT_MS = 5_000;
let t0: TestApp;
const receivers: HttpsReceiver[] = [];
const workers: WebhookDeliveryWorker[] = [];

test.before(async () => {
  const { ca } = await sharedTestCertificates();
  t0 = await createTestApp({
    outbound: { caCerts: [ca.certPem] },
    webhooks: { retryScheduleSeconds: [60], requestTimeoutMs: TIMEOUT_MS, leaseMs: LEASE_MS, workerPollIntervalMs: 50, concurrency: 1, batchSize: 5 },
  });
  await t0.ctx.background.webhooks.dispatcher.start();
});

async function stopWorkers(): Promise<void> {
  for (const w of workers.splice(0)) await w.stop();
}

test.afterEach.always(stopWorkers);

test.after.always(async () => {
  await stopWorkers();
  await t0?.ctx.background.webhooks.dispatcher.stop();
  await t0?.close();
  await Promise.all(receivers.map((r) => r.close()));
});

function worker(now: () => number): WebhookDeliveryWorker {
  const ctx = t0.ctx;
  const w = new WebhookDeliveryWorker({ db: ctx.db, outbox: ctx.outbox, client: ctx.outbound, box: ctx.secretBox, config: ctx.config.webhooks, logger: ctx.logger, now });
  workers.push(w);
  return w;
}

async function setup(n: number): Promise<{ hook: string; r: HttpsReceiver }> {
  const { tenantId, token } = await t0.tenant();
  const r = await startHttpsReceiver();
  receivers.push(r);
  const res = await t0.request('POST', '/api/webhooks', { token, payload: { name: 'q', url: `${r.origin}/hook`, events: ['asset.created'] } });
  const hook = res.body.data.id as string;
  await t0.ctx.outbox.transaction(async ({ emit }) => {
    for (let i = 0; i < n; i++) await emit({ tenantId, kind: 'asset.created', data: { seq: i } });
  });
  await eventually(async () => (await t0.ctx.db('webhook_deliveries').where({ webhook_id: hook })).length === n);
  return { hook, r };
}

const perDelivery = (r: HttpsReceiver) => {
  const counts = new Map<string, number>();
  for (const q of r.requests) counts.set(String(q.headers['webhook-id']), (counts.get(String(q.headers['webhook-id'])) ?? 0) + 1);
  return counts;
};

test.serial('a queued row whose lease can no longer cover a request is given back, not sent: no second worker can send it too', async (t) => {
  const { hook, r } = await setup(3);
  // The first request is held long enough to move the clock; later ones take longer than what would be left of their lease.
  r.respond((_req, i) => ({ status: 200, delayMs: i === 0 ? 600 : 2900 }));
  let offset = 0;
  const clock = () => Date.now() + offset;
  const a = worker(clock);
  a.start();
  await r.waitFor(1);
  // A holds the row in flight and two queued rows, all with 3 s of lease left: enough for the
  // request in flight to end, less than a new request may take (5 s).
  offset = LEASE_MS - 3000;
  // B competes with the same clock: it takes over any row whose lease ends, as a worker in another process would.
  worker(clock).start();
  const rows = await eventually(async () => {
    const list = await t0.ctx.db('webhook_deliveries').where({ webhook_id: hook });
    return list.every((d: { status: string }) => d.status === 'delivered') && list;
  }, 20_000);
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.is(r.requests.length, 3, 'three deliveries, three requests');
  t.deepEqual([...perDelivery(r).values()], [1, 1, 1], 'no delivery was sent twice');
  t.true(rows.every((d: { attempt_count: number }) => Number(d.attempt_count) === 1));
  const attempts = await t0.ctx.db('webhook_attempts').whereIn('delivery_id', rows.map((d: { id: string }) => d.id));
  t.is(attempts.length, 3);
});

test.serial('stop gives queued rows back unsent and releases the one in flight without spending an attempt', async (t) => {
  const { hook, r } = await setup(4);
  r.respond(() => ({ status: 200, delayMs: 5000 }));
  const a = worker(Date.now);
  a.start();
  await r.waitFor(1);
  await a.stop();
  const rows = await t0.ctx.db('webhook_deliveries').where({ webhook_id: hook });
  t.is(rows.length, 4);
  for (const d of rows) t.like(d, { status: 'pending', locked_by: null });
  t.true(rows.every((d: { attempt_count: number; locked_until: number }) => Number(d.attempt_count) === 0 && Number(d.locked_until) === 0));
  t.is((await t0.ctx.db('webhook_attempts').whereIn('delivery_id', rows.map((d: { id: string }) => d.id))).length, 0);

  // Another worker picks them all up at once and sends each once more (the aborted one included).
  r.respond(() => ({ status: 200 }));
  worker(Date.now).start();
  await eventually(async () => (await t0.ctx.db('webhook_deliveries').where({ webhook_id: hook, status: 'delivered' })).length === 4, 20_000);
  const counts = perDelivery(r);
  t.is(counts.size, 4);
});
