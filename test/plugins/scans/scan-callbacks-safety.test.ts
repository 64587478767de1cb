import test from 'ava';
import { createHmac } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { createAsset, ENGINE_SCANNER, waitForScan } from '../../_helpers/harness/scan-helpers.ts';

const FIXTURE = fileURLToPath(new URL('../../fixtures/third-party-scanner', import.meta.url));
let t0: TestApp;
let receiver: HttpsReceiver;
let pluginDir: string;
let bannerPort: number;
const closers: Array<() => unknown> = [];

test.before(async () => {
  const { ca } = await sharedTestCertificates();
  // A service that greets with a banner, for the third-party fixture check.
  const banner = createServer((s) => {
    s.on('error', () => undefined);
    s.end('SSH-2.0-FixtureSSH_1.0\r\n');
  });
  await new Promise<void>((r) => banner.listen(0, '127.0.0.1', r));
  bannerPort = (banner.address() as { port: number }).port;
  closers.push(() => banner.close());
  // The fixture package installed in an admin's folder outside the source tree, enabled from config.
  pluginDir = mkdtempSync(join(tmpdir(), 'rampart-scanners-'));
  mkdirSync(join(pluginDir, 'node_modules'));
  cpSync(FIXTURE, join(pluginDir, 'node_modules', 'rampart-scanner-fixture'), { recursive: true });
  t0 = await createTestApp({
    outbound: { caCerts: [ca.certPem] },
    // Retries at once (the schedule's delays are the worker's, tested in core/webhooks), at most 3 attempts.
    scans: { callbacks: { retryScheduleSeconds: [0, 0] } },
    plugins: {
      builtin: [],
      baseDir: pluginDir,
      external: [
        { module: 'rampart-scanner-fixture', capabilities: ['net:outbound'], options: { port: bannerPort } },
        { module: ENGINE_SCANNER, capabilities: [], options: {} },
      ],
    },
  });
  await t0.ctx.background.scans.start(['worker']);
  // Callbacks are deliveries of the webhook queue: its worker sends them.
  await t0.ctx.background.webhooks.start();
  receiver = await startHttpsReceiver();
});
test.after.always(async () => {
  await t0?.close();
  await receiver?.close();
  closers.forEach((c) => c());
  rmSync(pluginDir, { recursive: true, force: true });
});

test('a third-party scanner loaded from config runs in a real scan', async (t) => {
  const assetId = await createAsset(t0, '127.0.0.1');
  const res = await t0.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: 'port' } });
  t.is(res.statusCode, 201, res.raw);
  const scan = await waitForScan(t0, res.body.data.scan_id);
  t.is(scan.status, 'completed');
  const results = (await t0.request('GET', `/api/scan/${scan.scan_id}/results`)).body.data;
  t.is(results.length, 1);
  t.like(results[0], { title: 'Service banner disclosure', severity: 'medium' });
  const detail = (await t0.request('GET', `/api/findings/${results[0].id}`)).body.data;
  t.is(detail.evidence.response_indicator, 'SSH-2.0-FixtureSSH_1.0');
  const row = await t0.ctx.db('findings').where({ id: results[0].id }).first();
  t.is(row.check_id, 'fixture:tcp-banner');
});

test('callback_url receives the final summary, signed, and is retried after a failure', async (t) => {
  receiver.respond((_req, i) => ({ status: i === 0 ? 503 : 200 }));
  const assetId = await createAsset(t0, '192.0.2.80');
  const url = `${receiver.origin}/scan-done`;
  const res = await t0.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: 'web_app', callback_url: url } });
  t.is(res.statusCode, 201, res.raw);
  const secret = res.body.data.callback_secret;
  t.regex(secret, /^whsec_/);
  const scanId = res.body.data.scan_id;
  t.false(JSON.stringify((await t0.request('GET', `/api/scan/${scanId}`)).body).includes(secret), 'the secret is shown once');
  await waitForScan(t0, scanId);
  const [first, second] = await receiver.waitFor(2, 20_000);
  t.is(first!.body, second!.body, 'the retry sends the same body');
  const body = JSON.parse(second!.body);
  t.is(body.event, 'scan.completed');
  t.like(body.data, { scan_id: scanId, asset_id: assetId, status: 'completed', finding_count: 2, error: null });
  const expected = `sha256=${createHmac('sha256', secret).update(second!.body).digest('hex')}`;
  t.is(second!.headers['x-svc-signature'], expected);
  t.is(second!.headers['webhook-id'], scanId);
  t.truthy(second!.headers['webhook-signature']);
  const row = await callbackRow(scanId, (r) => r.status !== 'pending' && r.status !== 'retried');
  t.like(row, { status: 'delivered', attempt_count: 2, webhook_id: null, target_url: url });
  const attempts = await t0.ctx.db('webhook_attempts').where({ delivery_id: row.id }).orderBy('attempt_number');
  t.deepEqual(attempts.map((a) => [a.outcome, a.response_code]), [['failure', 503], ['success', 200]]);
});

/** The scan's callback delivery once `done` holds for it. */
async function callbackRow(scanId: string, done: (row: Record<string, unknown>) => boolean): Promise<Record<string, any>> {
  let row = await t0.ctx.db('webhook_deliveries').where({ scan_id: scanId }).first();
  for (let i = 0; i < 200 && (!row || !done(row)); i++) {
    await new Promise((r) => setTimeout(r, 25));
    row = await t0.ctx.db('webhook_deliveries').where({ scan_id: scanId }).first();
  }
  return row;
}

test('a callback that keeps failing stops after the callback schedule, and no webhook listing shows it', async (t) => {
  const { token } = await t0.tenant();
  const failing = await startHttpsReceiver();
  t.teardown(() => failing.close());
  failing.respond(() => ({ status: 500 }));
  // The tenant also has a webhook whose delivery list must not show the callback.
  const hook = await t0.request('POST', '/api/webhooks', { token, payload: { name: 'h', url: `${failing.origin}/hook`, events: ['asset.created'] } });
  t.is(hook.statusCode, 201, hook.raw);
  const asset = await t0.request('POST', '/api/assets', { token, payload: { name: '192.0.2.82', type: 'ip' } });
  const res = await t0.request('POST', '/api/scan/create', { token, payload: { asset_id: asset.body.data.id, scan_type: 'web_app', callback_url: `${failing.origin}/cb` } });
  t.is(res.statusCode, 201, res.raw);
  const scanId = res.body.data.scan_id;
  const row = await callbackRow(scanId, (r) => r.status === 'failed');
  t.like(row, { status: 'failed', attempt_count: 3, next_attempt_at: null, last_response_code: 500 });
  t.is(failing.requests.filter((r) => r.path === '/cb').length, 3, 'the first attempt and the schedule\'s two retries');
  const listed = await t0.request('GET', `/api/webhooks/${hook.body.data.id}/deliveries`, { token });
  t.is(listed.statusCode, 200);
  t.false(listed.body.data.some((d: { id: string }) => d.id === row.id), 'a callback is no delivery of the webhook');
  t.is((await t0.request('GET', `/api/webhooks/${hook.body.data.id}/deliveries/${row.id}`, { token })).statusCode, 404);
  t.is((await t0.request('POST', `/api/webhooks/${hook.body.data.id}/deliveries/${row.id}/retry`, { token })).statusCode, 404);
  t.false(JSON.stringify(listed.body).includes(res.body.data.callback_secret));
});

test('a callback_url the SSRF rules refuse is a 400', async (t) => {
  const assetId = await createAsset(t0, '192.0.2.81');
  const res = await t0.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: 'web_app', callback_url: 'https://169.254.169.254/latest' } });
  t.is(res.statusCode, 400);
  t.is(res.body.error.code, 'invalid_callback_url');
});

test('safety defaults: unverified assets and deny-listed targets are refused', async (t) => {
  const strict = await createTestApp({ scans: { requireVerifiedAsset: true, denySelf: true }, plugins: { builtin: [], baseDir: '/', external: [{ module: ENGINE_SCANNER, capabilities: [], options: {} }] } });
  t.teardown(() => strict.close());
  const unverified = await createAsset(strict, '192.0.2.90');
  const refused = await strict.request('POST', '/api/scan/create', { payload: { asset_id: unverified, scan_type: 'web_app' } });
  t.is(refused.statusCode, 400);
  t.is(refused.body.error.code, 'asset_not_verified');
  await strict.ctx.db('assets').update({ verified: true, status: 'active' });
  for (const name of ['127.0.0.1', '169.254.169.254', 'fd00:ec2::254']) {
    const id = await createAsset(strict, name);
    await strict.ctx.db('assets').where({ id }).update({ verified: true });
    const res = await strict.request('POST', '/api/scan/create', { payload: { asset_id: id, scan_type: 'web_app' } });
    t.is(res.statusCode, 400, name);
    t.is(res.body.error.code, 'target_denied', name);
  }
  t.is((await strict.request('POST', '/api/scan/create', { payload: { asset_id: unverified, scan_type: 'web_app' } })).statusCode, 201);
});
