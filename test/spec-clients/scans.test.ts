import test from 'ava';
import { createTestApp, type TestApp } from '../_helpers/harness/test-app.ts';
import { saysWhatToAdd, specFields } from '../_helpers/spec-clients/spec-fields.ts';

// Scans as a spec-only client uses them, with the production safety switch on: an asset
// must be verified before it is scanned (a Rampart rule the spec does not show; the 400
// says what to do). The spec shows no verification request beyond POST …/verify, so the
// harness marks the asset verified as a successful POST …/verify/check would.
let t0: TestApp;
let token: string;
test.before(async () => {
  t0 = await createTestApp({ scans: { requireVerifiedAsset: true } });
  ({ token } = await t0.tenant());
});
test.after.always(async () => t0?.close());

const call = (method: string, url: string, payload?: unknown) => t0.request(method, url, { token, payload: payload as object });

test('create → details → status → list → results → cancel with the spec\'s fields only', async (t) => {
  const assetId = (await call('POST', '/api/assets', { name: '198.51.100.40', type: 'ip' })).body.data.id;
  const request = { asset_id: assetId, scan_type: 'quick', options: { follow_redirects: true, max_depth: 5, timeout: 3600, enable_bruteforce: false }, priority: 'high' };
  saysWhatToAdd(t, await call('POST', '/api/scan/create', request), 400, 'asset_not_verified', /verify it \(POST \/api\/assets\/\{id\}\/verify\)/);
  await t0.ctx.db('assets').where({ id: assetId }).update({ verified: true, status: 'active' });

  const created = await call('POST', '/api/scan/create', request);
  t.is(created.statusCode, 201, created.raw);
  specFields(t, created.body.data, { scan_id: 'string', asset_id: 'string', scan_type: 'string', status: 'string', priority: 'string', created_at: 'timestamp', estimated_duration_minutes: 'integer' }, 'POST /api/scan/create');
  t.like(created.body.data, { status: 'queued', priority: 'high', scan_type: 'quick' });
  const id = created.body.data.scan_id;

  const again = await call('POST', '/api/scan/create', request);
  t.is(again.statusCode, 409, 'a scan is already running for the asset');
  t.is(again.body.error.scan_id, id, 'the body carries the scan_id of that scan');

  const details = await call('GET', `/api/scan/${id}`);
  t.is(details.statusCode, 200);
  specFields(t, details.body.data, { scan_id: 'string', asset_id: 'string', asset_name: 'string', scan_type: 'string', status: 'string', priority: 'string', progress: 'integer', finding_summary: 'object', started_at: 'timestamp|null', completed_at: 'timestamp|null', duration_seconds: 'integer|null', created_at: 'timestamp' }, 'GET /api/scan/{id}');

  const status = await call('GET', `/api/scan/${id}/status`);
  t.is(status.statusCode, 200);
  specFields(t, status.body.data, { scan_id: 'string', status: 'string', progress: 'integer', current_phase: 'string', eta_seconds: 'integer|null' }, 'GET /api/scan/{id}/status');

  const from = new Date(Date.now() - 60_000).toISOString();
  const list = await call('GET', `/api/scans?status=queued&asset_id=${assetId}&scan_type=quick&from=${from}&page=1&per_page=20`);
  t.is(list.statusCode, 200, list.raw);
  t.deepEqual(list.body.data.map((s: { scan_id: string }) => s.scan_id), [id]);

  const cancelled = await call('POST', `/api/scan/${id}/cancel`);
  t.is(cancelled.statusCode, 200, cancelled.raw);
  t.is((await call('GET', `/api/scan/${id}/status`)).body.data.status, 'cancelled');

  const results = await call('GET', `/api/scan/${id}/results?severity=critical,high&page=1&per_page=20`);
  t.is(results.statusCode, 200);
  specFields(t, results.body.meta, { total: 'integer', page: 'integer', per_page: 'integer' }, 'results.meta');
});

test('variant B scan types and options are accepted where a scanner offers them; an unknown type names the ones there are', async (t) => {
  const assetId = (await call('POST', '/api/assets', { name: '198.51.100.41', type: 'ip' })).body.data.id;
  await t0.ctx.db('assets').where({ id: assetId }).update({ verified: true, status: 'active' });
  const port = await call('POST', '/api/scan/create', { asset_id: assetId, scan_type: 'port', options: { depth: 'shallow', include_subdomains: false } });
  t.is(port.statusCode, 201, port.raw);
  await call('POST', `/api/scan/${port.body.data.scan_id}/cancel`);
  const unknown = await call('POST', '/api/scan/create', { asset_id: assetId, scan_type: 'deep' });
  t.is(unknown.statusCode, 400);
  t.regex(unknown.body.error.message, /quick/);
});
