import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { createAsset, engineOnly, eventsOf, waitForScan } from '../../_helpers/harness/scan-helpers.ts';

let t0: TestApp;

test.before(async () => {
  t0 = await createTestApp(engineOnly());
  await t0.ctx.background.scans.start(['worker']);
});
test.after.always(async () => t0?.close());

const create = (payload: Record<string, unknown>, query = '', token?: string) => t0.request('POST', `/api/scan/create${query}`, { payload, token });

test('a scan goes queued -> running -> completed with events, progress, findings and the asset updated', async (t) => {
  const assetId = await createAsset(t0, '192.0.2.10');
  const res = await create({ asset_id: assetId, scan_type: 'web_app' });
  t.is(res.statusCode, 201, res.raw);
  const created = res.body.data;
  t.like(created, { asset_id: assetId, scan_type: 'web_app', status: 'queued', priority: 'normal' });
  t.true(Number.isInteger(created.estimated_duration_minutes) && created.estimated_duration_minutes >= 1);
  const scan = await waitForScan(t0, created.scan_id);
  t.is(scan.status, 'completed');
  t.is(scan.progress, 100);
  t.is(scan.error, null);
  t.deepEqual(scan.checks, { total: 3, done: 3, failed: 1 }, 'the scan completes, and says one check failed');
  t.deepEqual(scan.check_results.map((c: any) => [c.check_id, c.status, c.error]), [
    ['engine:findings', 'completed', 'invalid findings dropped: Bad vector: Invalid CVSS v3.1 vector: value "X" is not allowed for AV (one of N, A, L, P)'],
    ['engine:slow', 'completed', null],
    ['engine:broken', 'error', 'boom'],
  ]);
  t.true(scan.check_results.every((c: any) => Number.isInteger(c.duration_ms) && typeof c.completed_at === 'string'));
  t.is(scan.scope, null, 'not a composed scan of a URL asset');
  t.is(scan.finding_count, 2, 'the invalid vector was dropped');
  t.deepEqual(scan.finding_summary, { critical: 0, high: 1, medium: 0, low: 0, info: 1 });
  t.true(scan.duration_seconds >= 0);
  t.like(scan.options, { timeout: 3600, follow_redirects: true, max_depth: 5, enable_bruteforce: false });
  const checks = await t0.ctx.db('scan_checks').where({ scan_id: created.scan_id }).orderBy('seq');
  t.deepEqual(checks.map((c: any) => [c.check_id, c.status]), [['engine:findings', 'completed'], ['engine:slow', 'completed'], ['engine:broken', 'error']]);
  t.is(checks[2].error, 'boom', 'a throwing check is recorded; the scan goes on');
  t.regex(checks[0].error, /invalid findings dropped: Bad vector/);
  t.deepEqual((await eventsOf(t0, 'scan.created', (d) => d.scan_id === created.scan_id))[0], { scan_id: created.scan_id, asset_id: assetId, scan_type: 'web_app', priority: 'normal' });
  const done = await eventsOf(t0, 'scan.completed', (d) => d.scan_id === created.scan_id);
  t.is(done.length, 1);
  t.like(done[0], { finding_count: 2, asset_id: assetId, status: 'completed', checks_total: 3, checks_failed: 1 });
  t.like(done[0].failed_checks, [{ check_id: 'engine:broken', status: 'error', error: 'boom' }]);
  t.true(Number.isInteger(done[0].duration));
  t.true((await eventsOf(t0, 'scan.progress', (d) => d.scan_id === created.scan_id)).length >= 1);
  t.is((await eventsOf(t0, 'finding.new', (d) => d.scan_id === created.scan_id)).length, 2);
  const asset = (await t0.request('GET', `/api/assets/${assetId}`)).body.data;
  t.truthy(asset.last_scan);
  t.is(asset.finding_summary.high, 1);
  t.true(asset.risk_score > 0);
  const status = await t0.request('GET', `/api/scan/${created.scan_id}/status`);
  t.deepEqual(status.body, { data: { scan_id: created.scan_id, status: 'completed', progress: 100, current_phase: 'completed', eta_seconds: 0 } });
  const flat = await t0.request('GET', `/api/scan/${created.scan_id}/status?format=flat`);
  t.deepEqual(flat.body, status.body.data);
  const results = await t0.request('GET', `/api/scan/${created.scan_id}/results`);
  t.is(results.statusCode, 200);
  t.deepEqual(results.body.data.map((f: any) => f.title), ['Engine finding A', 'Engine finding B']);
  t.like(results.body.meta, { total: 2, page: 1, per_page: 20 });
  const highOnly = await t0.request('GET', `/api/scan/${created.scan_id}/results?severity=high,critical&per_page=1`);
  t.is(highOnly.body.meta.total, 1);
  t.is(highOnly.body.data[0].severity, 'high');
});

test('the flat create variant, priority and the list filters', async (t) => {
  const assetId = await createAsset(t0, '192.0.2.11');
  const res = await create({ asset_id: assetId, scan_type: 'quick', priority: 'high', options: { depth: 'less' } }, '?format=flat');
  t.is(res.statusCode, 201, res.raw);
  t.deepEqual(Object.keys(res.body).sort(), ['created_at', 'estimated_duration', 'scan_id', 'status']);
  t.is(res.body.status, 'queued');
  t.true(res.body.estimated_duration === null || Number.isInteger(res.body.estimated_duration));
  const scan = await waitForScan(t0, res.body.scan_id);
  t.is(scan.status, 'completed');
  t.deepEqual(scan.checks, { total: 1, done: 1, failed: 0 }, 'quick runs only checks that can be critical or high');
  t.is(scan.check_results.length, 1);
  const list = await t0.request('GET', `/api/scans?asset_id=${assetId}&status=completed&scan_type=quick`);
  t.is(list.statusCode, 200);
  t.is(list.body.meta.total, 1);
  t.is(list.body.data[0].scan_id, res.body.scan_id);
  t.is(list.body.data[0].priority, 'high');
  t.is(list.body.data[0].asset_name, '192.0.2.11');
  t.deepEqual(list.body.data[0].checks, { total: 1, done: 1, failed: 0 });
  t.is(list.body.data[0].check_results, undefined, 'per-check outcomes are in the scan detail only');
  const future = new Date(Date.now() + 3600_000).toISOString();
  t.is((await t0.request('GET', `/api/scans?asset_id=${assetId}&from=${future}`)).body.meta.total, 0);
  t.is((await t0.request('GET', `/api/scans?asset_id=${assetId}&to=${future}`)).body.meta.total, 1);
  t.is((await t0.request('GET', '/api/scans?status=sleeping')).statusCode, 400);
});

test('custom scans run the checks of the given categories', async (t) => {
  const assetId = await createAsset(t0, '192.0.2.12');
  t.is((await create({ asset_id: assetId, scan_type: 'custom' })).body.error.code, 'categories_required');
  const res = await create({ asset_id: assetId, scan_type: 'custom', options: { categories: ['beta'] } });
  t.is(res.statusCode, 201, res.raw);
  const scan = await waitForScan(t0, res.body.data.scan_id);
  t.deepEqual(scan.checks, { total: 2, done: 2, failed: 1 });
  t.is(scan.finding_count, 0);
  t.is(scan.status, 'completed', 'one check failed, the other completed: the scan completes');
});

test('validation and refusals: 400, 403, 404, 409 with the running scan id', async (t) => {
  const assetId = await createAsset(t0, '192.0.2.13');
  const bad = [
    { scan_type: 'web_app' },
    { asset_id: assetId, scan_type: 'teleport' },
    { asset_id: assetId, scan_type: 'web_app', options: { timeout: 0 } },
    { asset_id: assetId, scan_type: 'web_app', options: { max_depth: 'deep' } },
    { asset_id: assetId, scan_type: 'web_app', options: { colour: 'red' } },
    { asset_id: assetId, scan_type: 'web_app', priority: 'urgent' },
    { asset_id: assetId, scan_type: 'web_app', callback_url: 'ftp://example.com/x' },
  ];
  for (const payload of bad) t.is((await create(payload)).statusCode, 400, JSON.stringify(payload));
  const unsupported = await create({ asset_id: assetId, scan_type: 'dns' });
  t.is(unsupported.statusCode, 400);
  t.is(unsupported.body.error.code, 'scan_type_not_supported');
  t.is((await create({ asset_id: 'ast_01JD3Z7Q9V0000000000000000', scan_type: 'web_app' })).statusCode, 404);
  const reader = await t0.tenant({ scopes: ['scan:read', 'assets:write'] });
  const forbidden = await create({ asset_id: assetId, scan_type: 'web_app' }, '', reader.token);
  t.is(forbidden.statusCode, 403);
  const other = await t0.tenant();
  t.is((await create({ asset_id: assetId, scan_type: 'web_app' }, '', other.token)).statusCode, 404, 'another tenant\'s asset');
  const first = await create({ asset_id: assetId, scan_type: 'web_app', options: { depth: 'slow' } });
  t.is(first.statusCode, 201);
  const again = await create({ asset_id: assetId, scan_type: 'web_app' });
  t.is(again.statusCode, 409);
  t.is(again.body.error.code, 'scan_in_progress');
  t.is(again.body.error.scan_id, first.body.data.scan_id);
  t.is((await t0.request('GET', `/api/scan/${first.body.data.scan_id}`, { token: other.token })).statusCode, 404);
  t.is((await t0.request('GET', '/api/scan/not-an-id')).statusCode, 400);
  const cancelled = await t0.request('POST', `/api/scan/${first.body.data.scan_id}/cancel`);
  t.is(cancelled.statusCode, 200);
  t.is(cancelled.body.data.status, 'cancelled');
  t.is((await t0.request('POST', `/api/scan/${first.body.data.scan_id}/cancel`)).statusCode, 409);
});
