import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { createAsset, engineOnly } from '../../_helpers/harness/scan-helpers.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp(engineOnly());
});
test.after.always(async () => t0?.close());

const VECTOR = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N';
const WRITTEN = ['findings', 'finding_status_history', 'events', 'change_clock'];

// Whole-table counts, so the tests of this file run serially.
async function rows(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of WRITTEN) out[table] = Number((await t0.ctx.db(table).count({ n: '*' }))[0]!.n);
  return out;
}

/** A tenant with two assets and a (queued) scan of the first. */
async function setup() {
  const tenant = await t0.tenant();
  // Two different addresses: the same name twice in one tenant is a 409 asset_exists.
  const first = Math.floor(Math.random() * 250) + 1;
  const assetId = await createAsset(t0, `192.0.2.${first}`, 'ip', tenant.token);
  const otherAssetId = await createAsset(t0, `192.0.2.${(first % 250) + 1}`, 'ip', tenant.token);
  const scan = await t0.request('POST', '/api/scan/create', { token: tenant.token, payload: { asset_id: assetId, scan_type: 'web_app' } });
  if (scan.statusCode !== 201) throw new Error(scan.raw);
  return { ...tenant, assetId, otherAssetId, scanId: scan.body.data.scan_id as string };
}

test.serial('a finding may name a scan of its own asset', async (t) => {
  const { token, assetId, scanId } = await setup();
  const res = await t0.request('POST', '/api/findings', { token, payload: { asset_id: assetId, title: 'found by the scan', cvss_vector: VECTOR, scan_id: scanId } });
  t.is(res.statusCode, 201, res.raw);
  t.is(res.body.data.scan_id, scanId);
  const bulk = await t0.request('POST', '/api/findings/bulk', { token, payload: { findings: [{ asset_id: assetId, title: 'two', cvss_vector: VECTOR, scan_id: scanId }, { asset_id: assetId, title: 'three', cvss_vector: VECTOR }] } });
  t.is(bulk.statusCode, 201, bulk.raw);
});

test.serial('a malformed scan_id is a 400 validation_failed naming the field, and writes nothing', async (t) => {
  const { token, assetId } = await setup();
  for (const scanId of ["' OR '1'='1", 'scn_\u0000', `scn_01M7ZD0NNG3X9SWF1J8WR7V1F\u0000`, 'ast_01M7ZD0NNG3X9SWF1J8WR7V1FB', 'scn_01m7zd0nng3x9swf1j8wr7v1fb', '']) {
    const before = await rows();
    const one = await t0.request('POST', '/api/findings', { token, payload: { asset_id: assetId, title: 'x', cvss_vector: VECTOR, scan_id: scanId } });
    t.is(one.statusCode, 400, JSON.stringify(scanId));
    t.is(one.body.error.code, 'validation_failed');
    t.is(one.body.error.details[0].field, 'scan_id');
    const bulk = await t0.request('POST', '/api/findings/bulk', { token, payload: { findings: [{ asset_id: assetId, title: 'ok', cvss_vector: VECTOR }, { asset_id: assetId, title: 'x', cvss_vector: VECTOR, scan_id: scanId }] } });
    t.is(bulk.statusCode, 400, JSON.stringify(scanId));
    t.is(bulk.body.error.code, 'validation_failed');
    t.is(bulk.body.error.details[0].field, 'findings.1.scan_id');
    t.deepEqual(await rows(), before, JSON.stringify(scanId));
  }
});

test.serial('another tenant\'s scan, a scan of another asset or no scan at all is a 404, and bulk writes nothing', async (t) => {
  const mine = await setup();
  const theirs = await setup();
  const cases: Array<[string, string]> = [
    [theirs.scanId, 'another tenant\'s scan'],
    ['scn_01M7ZD0NNG3X9SWF1J8WR7V1FB', 'a scan that does not exist'],
  ];
  const ofOtherAsset = mine.scanId;
  for (const [scanId, what] of cases) {
    const before = await rows();
    const one = await t0.request('POST', '/api/findings', { token: mine.token, payload: { asset_id: mine.assetId, title: 'x', cvss_vector: VECTOR, scan_id: scanId } });
    t.is(one.statusCode, 404, what);
    t.is(one.body.status, 'error');
    t.is(one.body.error.code, 'not_found', what);
    t.deepEqual(one.body.error.details.map((d: { field: string }) => d.field), ['scan_id'], what);
    const bulk = await t0.request('POST', '/api/findings/bulk', {
      token: mine.token,
      payload: { findings: [{ asset_id: mine.assetId, title: 'ok', cvss_vector: VECTOR, scan_id: mine.scanId }, { asset_id: mine.assetId, title: 'x', cvss_vector: VECTOR, scan_id: scanId }] },
    });
    t.is(bulk.statusCode, 404, what);
    t.is(bulk.body.error.code, 'not_found', what);
    t.deepEqual(bulk.body.error.details.map((d: { field: string }) => d.field), ['findings.1.scan_id'], what);
    t.false(bulk.raw.includes(theirs.assetId), 'nothing of the other tenant is echoed');
    t.deepEqual(await rows(), before, what);
  }
  const before = await rows();
  const wrongAsset = await t0.request('POST', '/api/findings', { token: mine.token, payload: { asset_id: mine.otherAssetId, title: 'x', cvss_vector: VECTOR, scan_id: ofOtherAsset } });
  t.is(wrongAsset.statusCode, 404, 'a scan of another asset of the same tenant');
  t.is(wrongAsset.body.error.code, 'not_found');
  t.deepEqual(await rows(), before);
  t.is((await t0.request('GET', '/api/findings', { token: mine.token })).body.meta.total, 0);
});
