import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { createAsset, eventsOf, waitForScan } from '../../_helpers/harness/scan-helpers.ts';
import { startClosingServer, type ClosingServer } from '../../_helpers/targets/closing-server.ts';
import { badSite } from '../../_helpers/targets/web-sites.ts';

let t0: TestApp;
let server: ClosingServer;

test.before(async () => {
  // The careless site on a server that closes every kept-alive connection on its second
  // request, kills every TRACE, and never answers /files/readme.txt.
  server = await startClosingServer(badSite, (req) => req.method === 'TRACE' || req.url === '/files/readme.txt');
  t0 = await createTestApp({ plugins: { builtin: ['web_app'] }, scans: { worker: { leaseMs: 30_000, heartbeatMs: 500 } } });
  await t0.ctx.background.scans.start(['worker']);
});
test.after.always(async () => {
  await t0?.close();
  await server?.close();
});

test('no silent partial scan: reused connections are retried, a check that still fails is visible in the scan, its results and scan.completed', async (t) => {
  const assetId = await createAsset(t0, `${server.url}/`, 'url');
  const res = await t0.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: 'web_app', options: { max_depth: 3 } } });
  t.is(res.statusCode, 201, res.raw);
  const scanId = res.body.data.scan_id as string;
  const done = await waitForScan(t0, scanId, undefined, 60_000);
  const scan = (await t0.request('GET', `/api/scan/${scanId}`)).body.data;
  t.is(scan.status, 'completed', 'one failed check does not fail the scan');
  t.deepEqual(scan.checks, { total: 9, done: 9, failed: 1 }, 'the five active checks are not planned without options.active');
  const byId = Object.fromEntries(scan.check_results.map((c: { check_id: string }) => [c.check_id, c]));
  t.like(byId['web_app:trace'], { status: 'error', plugin: 'web_app', category: 'configuration' });
  t.regex(byId['web_app:trace'].error, /other side closed|ECONNRESET|socket/i);
  t.true(Number.isInteger(byId['web_app:trace'].duration_ms));
  // Every other check completed: the connections the server closed were retried.
  t.deepEqual(scan.check_results.filter((c: { status: string }) => c.status !== 'completed').map((c: { check_id: string }) => c.check_id), ['web_app:trace']);
  t.true(server.dropped > 2);
  // The page that never answered is a warning of each crawling check, not a silent gap.
  t.regex(byId['web_app:security-headers'].warnings.join('\n'), /1 page\(s\) could not be fetched and were not judged: \/files\/readme\.txt/);
  // The findings of the checks that completed are all there.
  const titles = (await t0.request('GET', `/api/scan/${scanId}/results?per_page=100`)).body.data.map((f: { title: string }) => f.title);
  t.true(titles.includes('Cookie without protective attributes: sid') && titles.includes('Open redirect via next on /login'), titles.join('\n'));
  t.false(titles.includes('HTTP TRACE method enabled'));
  const [event] = await eventsOf(t0, 'scan.completed', (d) => d.scan_id === scanId);
  t.like(event, { status: 'completed', checks_total: 9, checks_failed: 1, finding_count: done.finding_count });
  t.is(event.failed_checks.length, 1);
  t.like(event.failed_checks[0], { check_id: 'web_app:trace', status: 'error' });
  t.regex(event.failed_checks[0].error, /other side closed|ECONNRESET|socket/i);
  // Lists carry the count, not the per-check detail.
  const listed = (await t0.request('GET', `/api/scans?asset_id=${assetId}`)).body.data[0];
  t.deepEqual(listed.checks, { total: 9, done: 9, failed: 1 });
});
