import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { createAsset, engineOnly, waitForScan } from '../../_helpers/harness/scan-helpers.ts';
import { changeClock } from '../../../core/db/change-clock.ts';
import { scanRepository } from '../../../core/scans/scan-repository.ts';
import { formatHttpDate } from '../../../core/http/last-modified.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp(engineOnly());
});
test.after.always(async () => t0?.close());

// Changes of the last ~2 s are always answered 200 (core/http/last-modified.ts): age them.
const TEN_SECONDS_AGO = () => Math.floor(Date.now() / 1000) * 1000 - 10_000;

/** A finished scan of a fresh tenant, its record and the tenant's scan clock moved 10 s back. */
async function oldScan() {
  const { tenantId, token } = await t0.tenant();
  const assetId = await createAsset(t0, '192.0.2.60', 'ip', token);
  const created = await t0.request('POST', '/api/scan/create', { token, payload: { asset_id: assetId, scan_type: 'web_app' } });
  const id = created.body.data.scan_id as string;
  await t0.request('POST', `/api/scan/${id}/cancel`, { token });
  await waitForScan(t0, id, undefined, 30_000, token);
  const at = TEN_SECONDS_AGO();
  await scanRepository.update(t0.ctx.db, id, { updated_at: at });
  await changeClock.markChanged(t0.ctx.db, tenantId, 'scans', at);
  return { tenantId, token, assetId, id, at };
}

test('scan list, scan and scan status: Last-Modified from the services, 304 until the scan changes', async (t) => {
  const { token, assetId, id, at } = await oldScan();
  for (const url of ['/api/scans', `/api/scan/${id}`, `/api/scan/${id}/status`]) {
    const first = await t0.request('GET', url, { token });
    t.is(first.statusCode, 200, url);
    t.is(first.headers['last-modified'], formatHttpDate(at / 1000), url);
    const again = await t0.request('GET', url, { token, headers: { 'if-modified-since': String(first.headers['last-modified']) } });
    t.is(again.statusCode, 304, url);
  }
  const ims = { 'if-modified-since': formatHttpDate(at / 1000) };
  // A new scan moves the list's clock; the old scan's own record is unchanged.
  const next = await t0.request('POST', '/api/scan/create', { token, payload: { asset_id: assetId, scan_type: 'web_app' } });
  t.is(next.statusCode, 201, next.raw);
  t.is((await t0.request('GET', '/api/scans', { token, headers: ims })).statusCode, 200);
  t.is((await t0.request('GET', `/api/scan/${id}`, { token, headers: ims })).statusCode, 304);
  await t0.request('POST', `/api/scan/${next.body.data.scan_id}/cancel`, { token });
});

test('an unknown scan or another tenant\'s scan is 404 whatever If-Modified-Since says', async (t) => {
  const { id, at } = await oldScan();
  const other = await t0.tenant();
  const ims = { 'if-modified-since': formatHttpDate(at / 1000) };
  const foreign = await t0.request('GET', `/api/scan/${id}`, { token: other.token, headers: ims });
  t.is(foreign.statusCode, 404);
  t.is(foreign.headers['last-modified'], undefined);
  t.is((await t0.request('GET', `/api/scan/${id}/status`, { token: other.token, headers: ims })).statusCode, 404);
  t.is((await t0.request('GET', '/api/scan/scn_00000000000000000000000000', { token: other.token, headers: ims })).statusCode, 404);
});

test('schedule list: the schedules change clock, 304 until a schedule is written', async (t) => {
  const { tenantId, token } = await t0.tenant();
  const assetId = await createAsset(t0, '192.0.2.61', 'ip', token);
  const at = TEN_SECONDS_AGO();
  await changeClock.markChanged(t0.ctx.db, tenantId, 'schedules', at);
  const first = await t0.request('GET', '/api/scan-schedules', { token });
  t.is(first.statusCode, 200);
  t.is(first.headers['last-modified'], formatHttpDate(at / 1000));
  const ims = { 'if-modified-since': String(first.headers['last-modified']) };
  t.is((await t0.request('GET', '/api/scan-schedules', { token, headers: ims })).statusCode, 304);
  const created = await t0.request('POST', '/api/scan-schedules', { token, payload: { asset_id: assetId, cron: '0 3 * * 1', scan_type: 'web_app' } });
  t.is(created.statusCode, 201, created.raw);
  t.is((await t0.request('GET', '/api/scan-schedules', { token, headers: ims })).statusCode, 200);
});
