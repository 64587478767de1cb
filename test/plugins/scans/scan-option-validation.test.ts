import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { createAsset } from '../../_helpers/harness/scan-helpers.ts';

// The built-in scanners (the port scanner among them); no worker runs, so scans stay queued.
let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(async () => t0?.close());

const BAD_PORTS = ['70000-80000', '0', '99999', '65535-1', '22,80,0-10', '1-65536'];
const WRITTEN = ['scans', 'scan_checks', 'scan_schedules', 'events', 'change_clock'];

// Whole-table counts, so the tests of this file run serially.
async function rows(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of WRITTEN) out[table] = Number((await t0.ctx.db(table).count({ n: '*' }))[0]!.n);
  return out;
}

function assertRejected(t: any, res: { statusCode: number; body: any; raw: string }, what: string): void {
  t.is(res.statusCode, 400, `${what}: ${res.raw}`);
  t.is(res.body.status, 'error');
  t.is(res.body.error.code, 'validation_failed', what);
  t.deepEqual(res.body.error.details.map((d: { field: string }) => d.field), ['options.ports'], what);
  t.regex(res.body.error.message, /ports/, what);
}

test.serial('a one-off scan with out-of-range ports is a 400 naming options.ports and queues nothing', async (t) => {
  const assetId = await createAsset(t0, '192.0.2.60');
  for (const ports of BAD_PORTS) {
    for (const scanType of ['port', 'network', 'web_app']) {
      const before = await rows();
      const res = await t0.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: scanType, options: { ports } } });
      assertRejected(t, res, `${scanType} ${ports}`);
      t.deepEqual(await rows(), before, `${scanType} ${ports}`);
    }
  }
  const ok = await t0.request('POST', '/api/scan/create', { payload: { asset_id: assetId, scan_type: 'port', options: { ports: '22,80,8000-8100,65535' } } });
  t.is(ok.statusCode, 201, ok.raw);
  await t0.request('POST', `/api/scan/${ok.body.data.scan_id}/cancel`);
});

test.serial('a schedule with out-of-range ports is refused at creation and at update, writing nothing', async (t) => {
  const assetId = await createAsset(t0, '192.0.2.61');
  for (const ports of BAD_PORTS) {
    const before = await rows();
    const res = await t0.request('POST', '/api/scan-schedules', { payload: { asset_id: assetId, cron: '0 3 * * 1', scan_type: 'port', options: { ports } } });
    assertRejected(t, res, `create ${ports}`);
    t.deepEqual(await rows(), before, `create ${ports}`);
  }
  const created = await t0.request('POST', '/api/scan-schedules', { payload: { asset_id: assetId, cron: '0 3 * * 1', scan_type: 'port', options: { ports: 'top:20' } } });
  t.is(created.statusCode, 201, created.raw);
  const id = created.body.data.id as string;
  const stored = await t0.ctx.db('scan_schedules').where({ id }).first();
  for (const ports of BAD_PORTS) {
    const before = await rows();
    const res = await t0.request('PUT', `/api/scan-schedules/${id}`, { payload: { options: { ports } } });
    assertRejected(t, res, `update ${ports}`);
    t.deepEqual(await rows(), before, `update ${ports}`);
    t.deepEqual(await t0.ctx.db('scan_schedules').where({ id }).first(), stored, `update ${ports} changed nothing`);
  }
  const ok = await t0.request('PUT', `/api/scan-schedules/${id}`, { payload: { options: { ports: '1-1024' } } });
  t.is(ok.statusCode, 200, ok.raw);
  t.is(ok.body.data.options.ports, '1-1024');
});

test.serial('a schedule stored with bad ports before this check can still be disabled or renamed; its options are checked only when they change', async (t) => {
  const assetId = await createAsset(t0, '192.0.2.63');
  const id = (await t0.request('POST', '/api/scan-schedules', { payload: { asset_id: assetId, cron: '0 3 * * 1', scan_type: 'port' } })).body.data.id as string;
  await t0.ctx.db('scan_schedules').where({ id }).update({ options: JSON.stringify({ ports: '70000-80000' }) });
  const disabled = await t0.request('PUT', `/api/scan-schedules/${id}`, { payload: { enabled: false, name: 'legacy' } });
  t.is(disabled.statusCode, 200, disabled.raw);
  t.like(disabled.body.data, { enabled: false, name: 'legacy', options: { ports: '70000-80000' } });
  assertRejected(t, await t0.request('PUT', `/api/scan-schedules/${id}`, { payload: { options: { ports: '99999' } } }), 'still refused when given');
});
