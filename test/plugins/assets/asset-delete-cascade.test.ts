import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(async () => {
  await t0?.close();
});

test('DELETE /api/assets/{id} removes the asset\'s scans, schedules and findings in one go', async (t) => {
  const { token } = await t0.tenant();
  const keep = (await t0.request('POST', '/api/assets', { token, payload: { name: 'keep.example', type: 'domain' } })).body.data.id;
  const gone = (await t0.request('POST', '/api/assets', { token, payload: { name: 'gone.example', type: 'domain' } })).body.data.id;
  const ids: Record<string, string[]> = { scans: [], schedules: [], findings: [] };
  for (const assetId of [keep, gone]) {
    const scan = await t0.request('POST', '/api/scan/create', { token, payload: { asset_id: assetId, scan_type: 'quick' } });
    t.is(scan.statusCode, 201, scan.raw);
    const schedule = await t0.request('POST', '/api/scan-schedules', { token, payload: { asset_id: assetId, cron: '0 3 * * *', scan_type: 'quick' } });
    t.is(schedule.statusCode, 201, schedule.raw);
    const finding = await t0.request('POST', '/api/findings', { token, payload: { asset_id: assetId, title: 'x', cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' } });
    ids.scans!.push(scan.body.data.scan_id);
    ids.schedules!.push(schedule.body.data.id);
    ids.findings!.push(finding.body.data.id);
  }
  t.is((await t0.request('DELETE', `/api/assets/${gone}`, { token })).statusCode, 204);
  const status = async (url: string) => (await t0.request('GET', url, { token })).statusCode;
  t.is(await status(`/api/scan/${ids.scans![0]}`), 200);
  t.is(await status(`/api/scan/${ids.scans![1]}`), 404);
  t.is(await status(`/api/scan-schedules/${ids.schedules![0]}`), 200);
  t.is(await status(`/api/scan-schedules/${ids.schedules![1]}`), 404);
  t.is(await status(`/api/findings/${ids.findings![0]}`), 200);
  t.is(await status(`/api/findings/${ids.findings![1]}`), 404);
  t.is((await t0.ctx.db('scans').where({ asset_id: gone })).length, 0);
  t.is((await t0.ctx.db('scan_schedules').where({ asset_id: gone })).length, 0);
});
