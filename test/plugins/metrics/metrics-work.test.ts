import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { createAsset, engineOnly, waitForScan } from '../../_helpers/harness/scan-helpers.ts';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../_helpers/receivers/https-receiver.ts';
import { parsePrometheusText, sampleValue, type Exposition } from '../../_helpers/parsers/prometheus-text.ts';

// The figures the background work reports as it happens: each check's duration by check id,
// and each webhook delivery attempt by outcome and attempt number. Serial: the figures are
// process-wide.
const SCRAPE_TOKEN = 'scrape-token-work-0123456789abcdef012345';
let t0: TestApp;
let receiver: HttpsReceiver;

test.before(async () => {
  const { ca } = await sharedTestCertificates();
  t0 = await createTestApp(engineOnly({ metrics: { token: SCRAPE_TOKEN }, outbound: { caCerts: [ca.certPem] }, webhooks: { retryScheduleSeconds: [0.05, 0.05] } }));
  await t0.ctx.background.scans.start(['worker']);
  receiver = await startHttpsReceiver();
});
test.after.always(async () => {
  await t0?.close();
  await receiver?.close();
});

async function scrape(): Promise<Exposition> {
  const res = await t0.request('GET', '/metrics', { token: SCRAPE_TOKEN });
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.raw}`);
  return parsePrometheusText(res.raw);
}

test.serial('every finished check is timed under its check id; the scan is counted by outcome', async (t) => {
  const before = await scrape();
  const assetId = await createAsset(t0, '198.51.100.40');
  const res = await t0.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: 'web_app', options: {} } });
  t.is(res.statusCode, 201, res.raw);
  const scan = await waitForScan(t0, res.body.data.scan_id);
  t.is(scan.status, 'completed');
  const checks = await t0.ctx.db('scan_checks').where({ scan_id: scan.id ?? res.body.data.scan_id }).select('check_id');
  t.true(checks.length > 0);
  const after = await scrape();
  for (const { check_id: check } of checks as Array<{ check_id: string }>) {
    const count = (e: Exposition) => sampleValue(e, 'rampart_scan_check_duration_seconds_count', { check }) ?? 0;
    t.is(count(after) - count(before), 1, check);
  }
  const finished = (e: Exposition) => sampleValue(e, 'rampart_scans_finished_total', { outcome: 'completed' }) ?? 0;
  t.is(finished(after) - finished(before), 1);
});

test.serial('webhook attempts are counted by outcome and attempt number: retried, then delivered', async (t) => {
  receiver.respond((_req, index) => ({ status: index === 0 ? 503 : 200 }));
  const before = await scrape();
  await t0.ctx.background.webhooks.start();
  t.teardown(() => t0.ctx.background.webhooks.stop());
  const hook = await t0.request('POST', '/api/webhooks', { payload: { name: 'metrics', url: `${receiver.origin}/hook`, events: ['asset.created'] } });
  t.is(hook.statusCode, 201, hook.raw);
  await createAsset(t0, 'metrics-hook.example', 'domain');
  const attempts = (e: Exposition, outcome: string, attempt: string) => sampleValue(e, 'rampart_webhook_deliveries_total', { outcome, attempt }) ?? 0;
  const deadline = Date.now() + 30_000;
  let after = await scrape();
  while (attempts(after, 'delivered', '2') - attempts(before, 'delivered', '2') < 1 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    after = await scrape();
  }
  t.is(attempts(after, 'retried', '1') - attempts(before, 'retried', '1'), 1);
  t.is(attempts(after, 'delivered', '2') - attempts(before, 'delivered', '2'), 1);
  t.is(receiver.requests.length, 2);
});
