import test from 'ava';
import { createApp, type App } from '../../../core/app.ts';
import { routePlugins } from '../../../plugins/index.ts';
import { WebhookDeliveryWorker } from '../../../core/webhooks/webhook-delivery-worker.ts';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

// Long enough that the restart below happens between attempt 1 and attempt 2.
const SCHEDULE = [1.5, 1.5, 1.5];
let t0: TestApp;
const receivers: HttpsReceiver[] = [];
const extraApps: App[] = [];
const workers: WebhookDeliveryWorker[] = [];

test.before(async () => {
  const { ca } = await sharedTestCertificates();
  t0 = await createTestApp({
    outbound: { caCerts: [ca.certPem] },
    webhooks: { retryScheduleSeconds: SCHEDULE, requestTimeoutMs: 30000, leaseMs: 60000, autoDisableAfterSeconds: 0.5, batchSize: 5, concurrency: 2 },
  });
  await t0.app.start();
});

test.after.always(async () => {
  for (const worker of workers) await worker.stop();
  for (const app of extraApps) await app.stop();
  await t0?.close();
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(): Promise<HttpsReceiver> {
  const r = await startHttpsReceiver();
  receivers.push(r);
  return r;
}

/**
 * More delivery workers competing for the same rows: extra workers on this app's pool
 * (distinct claim tokens), and on MariaDB also a whole second app with its own pool.
 * (Several SQLite connections cannot share one process: a writer waiting for the lock
 * blocks the event loop that would let the holder commit. Concurrent claims from
 * separate SQLite connections are covered in test/core/repositories.)
 */
async function competitors(): Promise<void> {
  const ctx = t0.app.ctx;
  for (let i = 0; i < 3; i++) {
    const worker = new WebhookDeliveryWorker({ db: ctx.db, outbox: ctx.outbox, client: ctx.outbound, box: ctx.secretBox, config: ctx.config.webhooks, logger: ctx.logger });
    workers.push(worker);
    worker.start();
  }
  if (t0.database.engine === 'mysql') {
    const app = await createApp(t0.config, { routes: routePlugins });
    extraApps.push(app);
    await app.start();
  }
}

async function webhook(token: string, r: HttpsReceiver, events = ['asset.created']) {
  const res = await t0.request('POST', '/api/webhooks', { token, payload: { name: 'durable', url: `${r.origin}/hook`, events } });
  return res.body.data as { id: string };
}

async function emitAssetCreated(tenantId: string, n = 1): Promise<void> {
  await t0.ctx.outbox.transaction(async ({ emit }) => {
    for (let i = 0; i < n; i++) await emit({ tenantId, kind: 'asset.created', data: { asset_id: `ast_${i}`, seq: i } });
  });
}

const deliveryRows = (webhookId: string) => t0.ctx.db('webhook_deliveries').where({ webhook_id: webhookId });

test.serial('a retry survives a restart: a new process sends the next attempt at its due time', async (t) => {
  const { tenantId, token } = await t0.tenant();
  const r = await receiver();
  r.respond((_req, i) => (i === 0 ? { status: 500 } : { status: 200 }));
  const hook = await webhook(token, r);
  await emitAssetCreated(tenantId);
  const row = await eventually(async () => {
    const [d] = await deliveryRows(hook.id);
    return d?.status === 'retried' && d;
  });
  const dueAt = Number(row.next_attempt_at);
  await t0.app.stop(); // the process goes away between attempts

  const app2 = await createApp(t0.config, { routes: routePlugins });
  extraApps.push(app2);
  await app2.start();
  await r.waitFor(2);
  const done = await eventually(async () => {
    const [d] = await app2.ctx.db('webhook_deliveries').where({ webhook_id: hook.id });
    return d?.status === 'delivered' && d;
  });
  const attempts = await app2.ctx.db('webhook_attempts').where({ delivery_id: done.id }).orderBy('attempt_number');
  t.is(attempts.length, 2);
  t.true(Number(attempts[1].attempted_at) >= dueAt, 'the second attempt was not made before its due time');
  t.is(r.requests.length, 2);
  // The rest of this file uses the new process.
  (t0 as { app: App }).app = app2;
});

test.serial('several workers (and on MariaDB several apps) never send the same attempt twice', async (t) => {
  const ctx = t0.app.ctx;
  const tenant = await ctx.services.admin.createTenant({ name: `multi-${Date.now()}`, tier: 'enterprise' });
  const r = await receiver();
  const res = await t0.app.server.inject({
    method: 'POST', url: '/api/webhooks', headers: { authorization: `Bearer ${(await ctx.services.admin.createToken(tenant.id, { name: 't', scopes: ['webhooks:manage'], expiresAt: null })).token}` },
    payload: { name: 'many', url: `${r.origin}/hook`, events: ['asset.created'] },
  });
  t.is(res.statusCode, 201);
  await competitors();
  const N = 60;
  await ctx.outbox.transaction(async ({ emit }) => {
    for (let i = 0; i < N; i++) await emit({ tenantId: tenant.id, kind: 'asset.created', data: { seq: i } });
  });
  await r.waitFor(N);
  await eventually(async () => {
    const rows = await ctx.db('webhook_deliveries').where({ tenant_id: tenant.id, status: 'delivered' }).count({ n: '*' }).first();
    return Number(rows!.n) === N;
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  // Every request the receiver got is a recorded attempt: no attempt was sent twice. (A
  // retry after a timeout on a starved machine is a legitimate second attempt.)
  const attempts = await ctx.db('webhook_attempts').where({ tenant_id: tenant.id }).select('delivery_id');
  t.is(r.requests.length, attempts.length, 'each attempt was sent exactly once');
  const perDelivery = new Map<string, number>();
  for (const q of r.requests) perDelivery.set(String(q.headers['webhook-id']), (perDelivery.get(String(q.headers['webhook-id'])) ?? 0) + 1);
  for (const a of attempts) perDelivery.set(a.delivery_id, (perDelivery.get(a.delivery_id) ?? 0) - 1);
  t.true([...perDelivery.values()].every((n) => n === 0), 'per delivery, requests received = attempts recorded');
  t.is(perDelivery.size, N);
  t.deepEqual([...new Set(r.requests.map((q) => JSON.parse(q.body).data.seq as number))].sort((a, b) => a - b), Array.from({ length: N }, (_, i) => i));
});

test.serial('an endpoint failing longer than the limit is disabled with a system.alert; re-enabling resumes', async (t) => {
  const ctx = t0.app.ctx;
  const tenant = await ctx.services.admin.createTenant({ name: `failing-${Date.now()}`, tier: 'standard' });
  const token = (await ctx.services.admin.createToken(tenant.id, { name: 't', scopes: ['webhooks:manage'], expiresAt: null })).token;
  const r = await receiver();
  let healthy = false;
  r.respond(() => (healthy ? { status: 200 } : { status: 500 }));
  const call = async (method: string, url: string, payload?: object) => {
    const res = await t0.app.server.inject({ method, url, headers: { authorization: `Bearer ${token}` }, payload });
    return JSON.parse(res.payload);
  };
  const hook = (await call('POST', '/api/webhooks', { name: 'flaky', url: `${r.origin}/hook`, events: ['asset.created'] })).data;
  await ctx.outbox.transaction(({ emit }) => emit({ tenantId: tenant.id, kind: 'asset.created', data: { n: 1 } }));
  const disabled = await eventually(async () => {
    const w = (await call('GET', `/api/webhooks/${hook.id}`)).data;
    return w.active === false && w;
  });
  t.is(disabled.disabled_reason, 'failing');
  t.truthy(disabled.disabled_at);
  const alerts = await ctx.db('events').where({ tenant_id: tenant.id, kind: 'system.alert' });
  t.is(alerts.length, 1);
  t.like(JSON.parse(alerts[0].data), { alert_type: 'webhook_disabled', webhook_id: hook.id });
  const sentWhileFailing = r.requests.length;
  t.is(sentWhileFailing, 2, 'disabled at the first failure past the limit');

  await ctx.outbox.transaction(({ emit }) => emit({ tenantId: tenant.id, kind: 'asset.created', data: { n: 2 } }));
  await new Promise((resolve) => setTimeout(resolve, 2000));
  t.is(r.requests.length, sentWhileFailing, 'nothing is sent to a disabled endpoint');
  t.is((await call('GET', `/api/webhooks/${hook.id}/deliveries`)).meta.total, 1, 'and no delivery is created for it');

  healthy = true;
  const enabled = (await call('PUT', `/api/webhooks/${hook.id}`, { active: true })).data;
  t.like(enabled, { active: true, disabled_reason: null, failing_since: null });
  await r.waitFor(sentWhileFailing + 1);
  await eventually(async () => (await call('GET', `/api/webhooks/${hook.id}/deliveries`)).data[0]?.status === 'delivered');
});
