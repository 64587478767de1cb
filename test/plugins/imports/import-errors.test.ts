import { readFileSync } from 'node:fs';
import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/imports/${name}`, import.meta.url), 'utf8');
const TRIVY = fixture('trivy-alpine-310.sarif');
const NUCLEI = fixture('nuclei-v2-cve.jsonl');

let app: TestApp;
test.before(async () => {
  app = await createTestApp({ imports: { maxBytes: 200_000, maxResults: 30 } });
});
test.after.always(async () => {
  await app?.close();
});

async function tenantWithAsset(name = `err-${Math.random().toString(36).slice(2)}.example`) {
  const tenant = await app.tenant();
  const asset = await app.request('POST', '/api/assets', { token: tenant.token, payload: { name, type: 'domain' } });
  return { ...tenant, assetId: asset.body.data.id as string };
}

const upload = (token: string, query: string, body: string | Buffer, contentType = 'application/json') =>
  app.request('POST', `/api/findings/import?${query}`, { token, payload: body, headers: { 'content-type': contentType } });

/** Findings and events of the tenant: a refused import must leave both as they were. */
async function footprint(tenantId: string) {
  const [f, e] = await Promise.all([
    app.ctx.db('findings').where({ tenant_id: tenantId }).count({ n: '*' }).first(),
    app.ctx.db('events').where({ tenant_id: tenantId }).count({ n: '*' }).first(),
  ]);
  return { findings: Number(f!.n), events: Number(e!.n) };
}

test('a malformed or invalid file is a 400 naming the line or JSON path, and nothing is written', async (t) => {
  const { token, tenantId, assetId } = await tenantWithAsset();
  const before = await footprint(tenantId);
  const trivy = JSON.parse(TRIVY);
  const lines = NUCLEI.split('\n');
  const broken = TRIVY.indexOf('"ruleIndex": 1,');
  const brokenLine = TRIVY.slice(0, broken).split('\n').length;
  const brokenColumn = broken - TRIVY.lastIndexOf('\n', broken) + '"ruleIndex": 1,'.length;
  const cases: Array<[string, string, string, RegExp]> = [
    ['sarif', TRIVY.replace('"ruleIndex": 1,', '"ruleIndex": 1,,'), `line ${brokenLine}, column ${brokenColumn}`, /not valid JSON/],
    ['sarif', JSON.stringify({ ...trivy, runs: [{ ...trivy.runs[0], results: [...trivy.runs[0].results.slice(0, 2), { ...trivy.runs[0].results[2], level: 'critical' }] }] }), '$.runs[0].results[2].level', /must be equal to one of the allowed values \("none", "note", "warning", "error"\)/],
    ['sarif', JSON.stringify({ ...trivy, version: '2.0.0' }), '$.version', /allowed values \("2\.1\.0"\)/],
    ['sarif', JSON.stringify({ ...trivy, runs: [{ ...trivy.runs[0], tool: { driver: {} } }] }), '$.runs[0].tool.driver', /required property 'name'/],
    ['sarif', '', 'line 1', /empty/],
    ['nuclei', [lines[0], lines[1], '{"template-id": "x", "info": {"severity": "catastrophic"}}'].join('\n'), 'line 3', /info\.severity/],
    ['nuclei', [lines[0], '{"template-id": "x", "info":'].join('\n'), 'line 2', /not valid JSON/],
    ['nuclei', '[{"template-id": "a", "info": {"severity": "low"}}, 7]', '$[1]', /expected a JSON object/],
    ['zap', JSON.stringify({ site: [{ '@name': 'https://x.example', alerts: [{ pluginid: '1', name: 'n', riskcode: '9', instances: [] }] }] }), '$.site[0].alerts[0].riskcode', /riskcode/],
    ['zap', JSON.stringify({ site: [{ alerts: [] }] }), '$.site[0]["@name"]', /no "@name"/],
  ];
  for (const [format, body, where, message] of cases) {
    const res = await upload(token, `format=${format}&asset_id=${assetId}`, body);
    t.is(res.statusCode, 400, `${format} ${where}: ${res.raw}`);
    t.is(res.body.error.code, 'invalid_import_file', where);
    t.is(res.body.error.details[0].field, where);
    t.regex(res.body.error.message, message, where);
    t.regex(res.body.error.message, /Nothing was imported\./);
  }
  t.deepEqual(await footprint(tenantId), before);
});

test('a file of another format is refused before it is read, saying which format it looks like', async (t) => {
  const { token, tenantId, assetId } = await tenantWithAsset();
  const before = await footprint(tenantId);
  const cases: Array<[string, string, string]> = [
    ['sarif', fixture('zap-2.14.0-baseline.json'), 'zap'],
    ['zap', TRIVY, 'sarif'],
    ['sarif', NUCLEI, 'nuclei'],
    ['nuclei', TRIVY, 'sarif'],
  ];
  for (const [format, body, detected] of cases) {
    const res = await upload(token, `format=${format}&asset_id=${assetId}`, body);
    t.is(res.statusCode, 400, res.raw);
    t.like(res.body.error, { code: 'import_format_mismatch', detected_format: detected });
    t.regex(res.body.error.message, new RegExp(`format=${detected}`));
  }
  t.deepEqual(await footprint(tenantId), before);
});

test('every result needs an asset of the caller\'s tenant, and a scan_id must be one of its scans of that asset', async (t) => {
  const mine = await tenantWithAsset('nuclei-example.com');
  const other = await tenantWithAsset('nuclei-example.com');
  const before = await footprint(mine.tenantId);
  const none = await upload(mine.token, 'format=nuclei', NUCLEI);
  t.like(none.body.error, { code: 'unmapped_target' });
  t.is(none.body.error.details[0].field, 'line 1');
  t.regex(none.body.error.details[0].message, /nuclei-example\.com/);
  const foreign = await upload(mine.token, `format=nuclei&asset_id=${other.assetId}`, NUCLEI);
  t.like(foreign.body.error, { code: 'unknown_asset' });
  t.is(foreign.body.error.details[0].field, 'asset_id');
  const foreignMap = await upload(mine.token, `format=nuclei&map=nuclei-example.com=${other.assetId}`, NUCLEI);
  t.is(foreignMap.body.error.details[0].field, 'map[nuclei-example.com]');
  const otherScan = await app.request('POST', '/api/scan/create', { token: other.token, payload: { asset_id: other.assetId, scan_type: 'quick' } });
  const scanId = otherScan.body.data.scan_id ?? otherScan.body.data.id;
  const wrongScan = await upload(mine.token, `format=nuclei&asset_id=${mine.assetId}&scan_id=${scanId}`, NUCLEI);
  t.is(wrongScan.statusCode, 404);
  const second = await app.request('POST', '/api/assets', { token: mine.token, payload: { name: 'second.example', type: 'domain' } });
  const myScan = await app.request('POST', '/api/scan/create', { token: mine.token, payload: { asset_id: second.body.data.id, scan_type: 'quick' } });
  const mismatch = await upload(mine.token, `format=nuclei&asset_id=${mine.assetId}&scan_id=${myScan.body.data.scan_id ?? myScan.body.data.id}`, NUCLEI);
  t.like(mismatch.body.error, { code: 'scan_asset_mismatch' });
  t.deepEqual(await footprint(mine.tenantId), { ...before, events: before.events + 2 }, 'only the asset and scan creations');

  // By name, each tenant's results go to its own asset of that name, never the other's.
  const byName = await upload(mine.token, 'format=nuclei&map_by_name=true', NUCLEI);
  t.is(byName.statusCode, 200, byName.raw);
  t.deepEqual(byName.body.data.assets.map((a: { id: string }) => a.id), [mine.assetId]);
  t.is((await footprint(other.tenantId)).findings, 0);
  const theirs = await app.request('GET', '/api/findings', { token: other.token });
  t.is(theirs.body.meta.total, 0);
});

test('scope, size and count limits', async (t) => {
  const { tenantId, assetId } = await tenantWithAsset();
  const admin = app.ctx.services.admin;
  const readOnly = (await admin.createToken(tenantId, { name: 'ro', scopes: ['findings:read', 'assets:write'], expiresAt: null })).token;
  const denied = await upload(readOnly, `format=nuclei&asset_id=${assetId}`, NUCLEI);
  t.is(denied.statusCode, 403);
  t.like(denied.body.error, { code: 'insufficient_scope' });

  const writer = (await admin.createToken(tenantId, { name: 'w', scopes: ['findings:write'], expiresAt: null })).token;
  const big = await upload(writer, `format=sarif&asset_id=${assetId}`, fixture('semgrep-1.69.0.sarif'));
  t.is(big.statusCode, 413);
  t.like(big.body.error, { code: 'payload_too_large', max_bytes: 200_000 });
  const many = await upload(writer, `format=nuclei&asset_id=${assetId}`, Array(16).fill(NUCLEI.trim()).join('\n'));
  t.is(many.statusCode, 413, many.raw.slice(0, 300));
  t.like(many.body.error, { max_results: 30 });
  const badQuery = await upload(writer, `format=csv&asset_id=${assetId}`, NUCLEI);
  t.like(badQuery.body.error, { code: 'validation_failed' });
  const badMap = await upload(writer, 'format=nuclei&map=nuclei-example.com', NUCLEI);
  t.like(badMap.body.error, { code: 'validation_failed' });
  const html = await upload(writer, `format=zap&asset_id=${assetId}`, '<html></html>', 'text/html');
  t.is(html.statusCode, 415);
  // XML is accepted for nmap's reports; ZAP's XML report is not its JSON one.
  const xml = await upload(writer, `format=zap&asset_id=${assetId}`, '<OWASPZAPReport/>', 'application/xml');
  t.like(xml.body.error, { code: 'invalid_import_file' });
  t.is(xml.body.error.details[0].field, 'line 1, column 1');
  t.is((await footprint(tenantId)).findings, 0);
});
