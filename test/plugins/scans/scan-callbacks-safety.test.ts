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
  let row = await t0.ctx.db('scan_callbacks').where({ scan_id: scanId }).first();
  for (let i = 0; i < 100 && row.status === 'pending'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    row = await t0.ctx.db('scan_callbacks').where({ scan_id: scanId }).first();
  }
  t.is(row.status, 'delivered');
  t.is(row.attempts, 2);
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
