import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { createAsset, engineOnly, waitForScan } from '../../_helpers/harness/scan-helpers.ts';
import { ScanScheduler } from '../../../core/scans/scan-scheduler.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp(engineOnly());
});
test.after.always(async () => t0?.close());

test('schedules CRUD with validation', async (t) => {
  const assetId = await createAsset(t0, '192.0.2.50');
  const created = await t0.request('POST', '/api/scan-schedules', { payload: { asset_id: assetId, cron: '0 3 * * 1', scan_type: 'web_app', name: 'weekly', timezone: 'Europe/Paris' } });
  t.is(created.statusCode, 201, created.raw);
  const s = created.body.data;
  t.like(s, { asset_id: assetId, cron: '0 3 * * 1', scan_type: 'web_app', name: 'weekly', timezone: 'Europe/Paris', enabled: true, priority: 'normal', last_run_at: null });
  t.true(Date.parse(s.next_run_at) > Date.now());
  t.is(new Date(s.next_run_at).getUTCMinutes(), 0);
  for (const payload of [
    { asset_id: assetId, cron: 'every monday', scan_type: 'web_app' },
    { asset_id: assetId, cron: '0 3 * * 1', scan_type: 'web_app', timezone: 'Mars/Olympus' },
    { asset_id: assetId, cron: '0 3 * * 1', scan_type: 'dns' },
    { asset_id: assetId, cron: '0 3 * * 1' },
  ]) t.is((await t0.request('POST', '/api/scan-schedules', { payload })).statusCode, 400, JSON.stringify(payload));
  const list = await t0.request('GET', `/api/scan-schedules?asset_id=${assetId}`);
  t.is(list.body.meta.total, 1);
  const updated = await t0.request('PUT', `/api/scan-schedules/${s.id}`, { payload: { enabled: false, cron: '*/5 * * * *' } });
  t.is(updated.statusCode, 200);
  t.like(updated.body.data, { enabled: false, cron: '*/5 * * * *', next_run_at: null, name: 'weekly' });
  const other = await t0.tenant();
  t.is((await t0.request('GET', `/api/scan-schedules/${s.id}`, { token: other.token })).statusCode, 404);
  t.is((await t0.request('DELETE', `/api/scan-schedules/${s.id}`)).statusCode, 204);
  t.is((await t0.request('GET', `/api/scan-schedules/${s.id}`)).statusCode, 404);
});

test.serial('a tick is claimed in the database: two schedulers firing the same tick queue one scan', async (t) => {
  const assetId = await createAsset(t0, '192.0.2.51');
  const s = (await t0.request('POST', '/api/scan-schedules', { payload: { asset_id: assetId, cron: '0 0 1 1 *', scan_type: 'web_app' } })).body.data;
  const deps = { db: t0.ctx.db, scans: t0.ctx.services.scans, logger: t0.ctx.logger, pollIntervalMs: 60_000 };
  const a = new ScanScheduler(deps);
  const b = new ScanScheduler(deps);
  const tick = new Date(Math.floor(Date.now() / 60_000) * 60_000);
  const results = await Promise.all([a.fire(s.id, tick), b.fire(s.id, tick), a.fire(s.id, tick)]);
  const queued = results.filter(Boolean);
  t.is(queued.length, 1);
  const scans = await t0.request('GET', `/api/scans?asset_id=${assetId}`);
  t.is(scans.body.meta.total, 1);
  t.is(scans.body.data[0].schedule_id, s.id);
  t.is(await a.fire(s.id, new Date(tick.getTime() - 60_000)), null, 'an older tick is never run after a newer one');
  const after = (await t0.request('GET', `/api/scan-schedules/${s.id}`)).body.data;
  t.is(after.last_scan_id, queued[0]);
  t.is(after.last_outcome, 'queued');
  t.is(after.last_run_at, tick.toISOString());
  // The next tick finds the scan still queued: skipped, recorded.
  t.is(await b.fire(s.id, new Date(tick.getTime() + 60_000)), null);
  t.is((await t0.request('GET', `/api/scan-schedules/${s.id}`)).body.data.last_outcome, 'skipped: scan_in_progress');
  await t0.request('POST', `/api/scan/${queued[0]}/cancel`);
});

test.serial('the scheduler role runs stored schedules with node-cron (and picks them up after a restart)', async (t) => {
  const assetId = await createAsset(t0, '192.0.2.52');
  const s = (await t0.request('POST', '/api/scan-schedules', { payload: { asset_id: assetId, cron: '* * * * * *', scan_type: 'web_app', options: { depth: 'less' } } })).body.data;
  // A fresh scheduler (as after a restart) loads the stored schedule and fires it every second.
  await t0.ctx.background.scans.start(['scheduler', 'worker']);
  t.teardown(() => t0.ctx.background.scans.stop());
  t.true(t0.ctx.background.scans.scheduler!.scheduled >= 1);
  const started = Date.now();
  let scans;
  do {
    await new Promise((r) => setTimeout(r, 200));
    scans = (await t0.request('GET', `/api/scans?asset_id=${assetId}`)).body;
  } while (scans.meta.total < 1 && Date.now() - started < 20_000);
  t.true(scans.meta.total >= 1);
  const scan = await waitForScan(t0, scans.data[scans.data.length - 1].scan_id);
  t.is(scan.schedule_id, s.id);
  t.is(scan.status, 'completed');
  t.deepEqual(scan.options.depth, 'less');
  const before = t0.ctx.background.scans.scheduler!.scheduled;
  await t0.request('PUT', `/api/scan-schedules/${s.id}`, { payload: { enabled: false } });
  await t0.ctx.background.scans.scheduler!.sync();
  t.is(t0.ctx.background.scans.scheduler!.scheduled, before - 1, 'disabled schedules are unscheduled');
});
