import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(async () => t0?.close());

// What POST /api/scan/create stores when `options` is omitted.
const OPTION_DEFAULTS = { follow_redirects: true, max_depth: 5, timeout: 3600, enable_bruteforce: false };

test('the OpenAPI document shows the scan options default that is applied, not joi\'s internal marker', async (t) => {
  const doc = (await t0.request('GET', '/api/openapi.json', { token: null })).body;
  t.deepEqual(doc.components.schemas.CreateScan.properties.options.default, OPTION_DEFAULTS);
  t.deepEqual(doc.components.schemas.CreateSchedule.properties.options.default, OPTION_DEFAULTS);
  t.false(JSON.stringify(doc).includes('"special"'), 'no {"special":"deep"} anywhere in the document');
});

test('the documented default is the one a scan gets', async (t) => {
  const asset = (await t0.request('POST', '/api/assets', { payload: { name: '192.0.2.62', type: 'ip' } })).body.data.id;
  const created = await t0.request('POST', '/api/scan/create', { payload: { asset_id: asset, scan_type: 'port' } });
  t.is(created.statusCode, 201, created.raw);
  const scan = (await t0.request('GET', `/api/scan/${created.body.data.scan_id}`)).body.data;
  t.deepEqual(scan.options, OPTION_DEFAULTS);
  await t0.request('POST', `/api/scan/${scan.scan_id}/cancel`);
});
