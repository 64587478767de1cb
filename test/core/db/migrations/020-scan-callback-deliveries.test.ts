// Migration 020 moves scan callbacks into the webhook delivery queue. A database with
// callbacks still waiting (one never tried, one tried twice) and one delivered is taken
// back to before 020, migrated again, and the waiting ones go out through the webhook
// worker signed with the scan's own secret; `down` gives every callback back its row.
import test from 'ava';
import { createHmac } from 'node:crypto';
import { migrationSource } from '../../../../core/db/migrate.ts';
import { sharedTestCertificates } from '../../../_helpers/certificates/certs.ts';
import { createTestApp, type TestApp } from '../../../_helpers/harness/test-app.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../../_helpers/receivers/https-receiver.ts';

const NAME = '020-scan-callback-deliveries';
const SECRET = 'callback-secret-of-the-scan';
let t0: TestApp;
let receiver: HttpsReceiver;

test.before(async () => {
  const { ca } = await sharedTestCertificates();
  t0 = await createTestApp({ outbound: { caCerts: [ca.certPem] } });
  receiver = await startHttpsReceiver();
});
test.after.always(async () => {
  await t0?.ctx.background.webhooks.stop();
  await t0?.close();
  await receiver?.close();
});

test('waiting scan callbacks survive the move to the webhook queue and back', async (t) => {
  const db = t0.ctx.db;
  const scans: string[] = [];
  for (const name of ['192.0.2.21', '192.0.2.22', '192.0.2.23']) {
    const asset = await t0.request('POST', '/api/assets', { payload: { name, type: 'ip' } });
    const scan = await t0.request('POST', '/api/scan/create', { payload: { asset_id: asset.body.data.id, scan_type: 'port', callback_url: `${receiver.origin}/cb/${name}`, callback_secret: SECRET } });
    t.is(scan.statusCode, 201, scan.raw);
    scans.push(scan.body.data.scan_id);
  }
  await db.migrate.down({ migrationSource, name: NAME });
  t.true(await db.schema.hasTable('scan_callbacks'));
  t.false(await db.schema.hasColumn('webhook_deliveries', 'scan_id'));
  const now = Date.now();
  const rows = await db('scans').whereIn('id', scans).select('id', 'tenant_id', 'callback_url', 'callback_secret_sealed');
  const byId = new Map(rows.map((r) => [r.id as string, r]));
  const callback = (scanId: string, status: string, attempts: number) => ({
    scan_id: scanId, tenant_id: byId.get(scanId)!.tenant_id, url: byId.get(scanId)!.callback_url, secret_sealed: byId.get(scanId)!.callback_secret_sealed,
    payload: JSON.stringify({ event: 'scan.completed', data: { scan_id: scanId } }), status, attempts, next_attempt_at: now - 1000,
    response_code: attempts ? 503 : null, last_error: attempts ? 'The endpoint answered 503.' : null, created_at: now - 5000, updated_at: now - 2000,
  });
  await db('scan_callbacks').insert([callback(scans[0]!, 'pending', 0), callback(scans[1]!, 'pending', 2), callback(scans[2]!, 'delivered', 1)]);

  await db.migrate.up({ migrationSource, name: NAME });
  t.false(await db.schema.hasTable('scan_callbacks'));
  const moved = new Map((await db('webhook_deliveries').whereIn('scan_id', scans)).map((d) => [d.scan_id as string, d]));
  t.like(moved.get(scans[0]!), { webhook_id: null, status: 'pending', attempt_count: 0, event_kind: 'scan.completed' });
  t.like(moved.get(scans[1]!), { status: 'retried', attempt_count: 2, last_response_code: 503 });
  t.like(moved.get(scans[2]!), { status: 'delivered', attempt_count: 1, next_attempt_at: null });

  await t0.ctx.background.webhooks.start();
  const received = await receiver.waitFor(2, 10_000);
  t.deepEqual(received.map((r) => r.path).sort(), ['/cb/192.0.2.21', '/cb/192.0.2.22']);
  for (const r of received) {
    const scanId = scans[r.path.endsWith('21') ? 0 : 1]!;
    t.is(r.headers['webhook-id'], scanId);
    t.is(r.body, moved.get(scanId)!.payload, 'the stored body, byte for byte');
    t.is(r.headers['x-svc-signature'], `sha256=${createHmac('sha256', SECRET).update(r.body).digest('hex')}`);
  }
  for (let i = 0; i < 100 && (await db('webhook_deliveries').whereIn('scan_id', scans).where({ status: 'delivered' })).length < 3; i++) await new Promise((r) => setTimeout(r, 25));
  await t0.ctx.background.webhooks.stop();

  await db.migrate.down({ migrationSource, name: NAME });
  const back = new Map((await db('scan_callbacks').whereIn('scan_id', scans)).map((c) => [c.scan_id as string, c]));
  t.like(back.get(scans[0]!), { status: 'delivered', attempts: 1 });
  t.like(back.get(scans[1]!), { status: 'delivered', attempts: 3 });
  t.like(back.get(scans[2]!), { status: 'delivered', attempts: 1 });
  t.false(await db.schema.hasColumn('webhook_deliveries', 'scan_id'));
  await db.migrate.up({ migrationSource, name: NAME });
  t.is((await db('webhook_deliveries').whereIn('scan_id', scans)).length, 3);
});
