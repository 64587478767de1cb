// Scan callbacks on the webhook worker, below the scan engine: a callback row is claimed
// with the webhook deliveries, follows its own schedule, and a secret that cannot be
// opened is a recorded failed attempt (nothing sent, the secret in no log line).
import test from 'ava';
import { Writable } from 'node:stream';
import { createLogger } from '../../../core/logger.ts';
import { newId } from '../../../core/ids.ts';
import { callbackSecretContext } from '../../../core/webhooks/scan-callback-target.ts';
import { webhookDeliveryRepository } from '../../../core/webhooks/webhook-delivery-repository.ts';
import { WebhookDeliveryWorker } from '../../../core/webhooks/webhook-delivery-worker.ts';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';

let t0: TestApp;
let receiver: HttpsReceiver;

test.before(async () => {
  const { ca } = await sharedTestCertificates();
  t0 = await createTestApp({ outbound: { caCerts: [ca.certPem] } });
  receiver = await startHttpsReceiver();
});
test.after.always(async () => {
  await t0?.close();
  await receiver?.close();
});

/** A queued scan (no engine runs here) and its callback delivery, sealed for `sealedFor`. */
async function callback(secret: string, sealedFor?: string): Promise<{ scanId: string; id: string }> {
  const { token, tenantId } = await t0.tenant();
  const asset = await t0.request('POST', '/api/assets', { token, payload: { name: '192.0.2.44', type: 'ip' } });
  const scan = await t0.request('POST', '/api/scan/create', { token, payload: { asset_id: asset.body.data.id, scan_type: 'port' } });
  const scanId = scan.body.data.scan_id as string;
  const id = newId('dlv');
  await webhookDeliveryRepository.insertCallback(t0.ctx.db, {
    id, tenantId, scanId, url: `${receiver.origin}/cb/${scanId}`, secretSealed: t0.ctx.secretBox.seal(secret, callbackSecretContext(sealedFor ?? scanId)),
    eventKind: 'scan.completed', payload: JSON.stringify({ event: 'scan.completed', data: { scan_id: scanId } }), attemptsLeft: 2, now: Date.now(),
  });
  return { scanId, id };
}

function worker(logs: string[]): WebhookDeliveryWorker {
  const sink = new Writable({ write: (chunk, _enc, done) => void (logs.push(String(chunk)), done()) });
  const { ctx } = t0;
  return new WebhookDeliveryWorker({
    db: ctx.db, outbox: ctx.outbox, client: ctx.outbound, box: ctx.secretBox, config: ctx.config.webhooks, logger: createLogger('info', sink),
    callbacks: { requestTimeoutMs: 5_000, retryScheduleSeconds: [] },
  });
}

test.serial('a callback whose secret does not open fails as a recorded attempt; nothing is sent and the secret is logged nowhere', async (t) => {
  const logs: string[] = [];
  const w = worker(logs);
  t.teardown(() => w.stop());
  const { scanId, id } = await callback('the-callback-secret-canary', 'scn_someone_else');
  w.start();
  const row = await eventually(async () => {
    const r = await t0.ctx.db('webhook_deliveries').where({ id }).first();
    return r?.status === 'failed' ? r : undefined;
  }, 10_000);
  t.like(row, { attempt_count: 1, attempts_left: 0, next_attempt_at: null });
  const [attempt] = await t0.ctx.db('webhook_attempts').where({ delivery_id: id });
  t.like(attempt, { outcome: 'failure', error_code: 'secret_unavailable', response_code: null });
  t.false(receiver.requests.some((r) => r.path.endsWith(scanId)));
  await eventually(async () => logs.some((l) => l.includes('scan callback failed for good')), 5_000);
  t.true(logs.some((l) => l.includes(scanId)));
  t.false(logs.join('').includes('the-callback-secret-canary'));
});

test.serial('a callback goes out on the webhook worker signed with its scan\'s secret, webhook-id = scan id', async (t) => {
  receiver.respond(() => ({ status: 204 }));
  const w = worker([]);
  t.teardown(() => w.stop());
  const { scanId, id } = await callback('whsec_c2NhbiBzZWNyZXQ=');
  w.start();
  const [received] = await receiver.waitFor(1, 10_000);
  t.is(received!.path, `/cb/${scanId}`);
  t.is(received!.headers['webhook-id'], scanId);
  t.regex(String(received!.headers['webhook-signature']), /^v1,/);
  await eventually(async () => (await t0.ctx.db('webhook_deliveries').where({ id, status: 'delivered' })).length === 1, 5_000);
});
