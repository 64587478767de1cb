import test from 'ava';
import type { FindingReport } from '../../../core/plugin-api/index.ts';
import { runCheck } from '../../../core/author-kit/index.ts';
import { recordScanFindings } from '../../../core/scans/scan-findings.ts';
import { exposedFiles } from '../../../scanners/web_app/checks/exposed-files.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { carelessSite } from '../../_helpers/targets/careless-site.ts';
import { startHttpTarget, type HttpTarget } from '../../_helpers/targets/http-target.ts';
import { urlTarget } from '../../_helpers/targets/scan-target.ts';

// Cross-tool dedup (docs/finding-fingerprints.md): Rampart's web_app check and a nuclei
// import report the same exposed .env; both land on one finding with two sources.
let app: TestApp;
let site: HttpTarget;
let reports: FindingReport[];

test.before(async () => {
  app = await createTestApp();
  site = await startHttpTarget(carelessSite('careless').handler);
  const attempt = await runCheck(exposedFiles, urlTarget(`${site.url}/`), { timeoutMs: 20_000, options: { max_depth: 3, max_pages: 20, enable_bruteforce: true } });
  reports = attempt.findings;
});
test.after.always(async () => {
  await site?.close();
  await app?.close();
});

async function tenantWithAsset() {
  const tenant = await app.tenant();
  const asset = await app.request('POST', '/api/assets', { token: tenant.token, payload: { name: `dedup-${Math.random().toString(36).slice(2)}.example`, type: 'domain' } });
  return { ...tenant, assetId: asset.body.data.id as string, assetName: asset.body.data.name as string };
}

/** What the scan engine does with a finished check's reports, in a scan created through the API. */
async function scanReports(tenant: { token: string; tenantId: string; assetId: string; assetName: string }, found: FindingReport[], now = Date.now()) {
  const created = await app.request('POST', '/api/scan/create', { token: tenant.token, payload: { asset_id: tenant.assetId, scan_type: 'web_app' } });
  if (created.statusCode !== 201 && created.statusCode !== 202) throw new Error(created.raw);
  const scanId = created.body.data.scan_id as string;
  // One scan per asset at a time: this one stays queued (no worker runs here), so it is cancelled once its check is recorded.
  const recorded = await app.ctx.outbox.transaction((uow) => recordScanFindings(uow, app.ctx.services.findings, { tenantId: tenant.tenantId, assetId: tenant.assetId, assetName: tenant.assetName, scanId, checkId: 'web_app:exposed-files', now }, found));
  await app.request('POST', `/api/scan/${scanId}/cancel`, { token: tenant.token });
  return { scanId, recorded };
}

// A nuclei v3 result line for the real laravel-env template (its classification: CWE-522), as `nuclei -jsonl` writes it.
const nucleiEnv = (url: string) => `${JSON.stringify({
  'template-id': 'laravel-env', 'template-path': 'http/exposures/configs/laravel-env.yaml',
  info: { name: 'Laravel - Sensitive Information Disclosure', author: ['pxmme1337'], tags: ['config', 'exposure', 'laravel', 'vuln'], severity: 'high', classification: { 'cvss-metrics': 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:C/C:L/I:L/A:L', 'cvss-score': 8.3, 'cwe-id': ['cwe-522'] } },
  type: 'http', host: new URL(url).origin, 'matched-at': url, ip: '127.0.0.1', timestamp: '2026-12-01T10:00:00.000Z', 'matcher-status': true,
})}\n`;

function upload(token: string, query: string, body: string) {
  return app.request('POST', `/api/findings/import?${query}`, { token, payload: body, headers: { 'content-type': 'application/x-ndjson' } });
}

test('a nuclei import and a web_app scan reporting the same exposed .env are one finding with two sources, and say why', async (t) => {
  const tenant = await tenantWithAsset();
  const env = reports.find((r) => /\.env$/.test(String(r.location)))!;
  t.truthy(env, 'the web_app check found the .env');
  const { scanId, recorded } = await scanReports(tenant, reports);
  t.is(recorded.created, reports.length);

  const file = nucleiEnv(String(env.location));
  const imported = await upload(tenant.token, `format=nuclei&asset_id=${tenant.assetId}`, file);
  t.is(imported.statusCode, 200, imported.raw);
  t.like(imported.body.data, { results: 1, created: 0, seen_again: 1, duplicates: 0 });

  const list = await app.request('GET', `/api/findings?asset_id=${tenant.assetId}&per_page=100`, { token: tenant.token });
  t.is(list.body.meta.total, reports.length, 'no second finding for the .env');
  const id = list.body.data.find((f: { title: string }) => /\.env$/.test(f.title)).id as string;
  const detail = (await app.request('GET', `/api/findings/${id}`, { token: tenant.token })).body.data;
  t.deepEqual(detail.sources.map((s: { tool: string; rule_id: string }) => [s.tool, s.rule_id]), [['web_app', 'web_app:exposed-files'], ['nuclei', 'nuclei:laravel-env']]);
  t.is(detail.sources[0].first_origin, `scan:${scanId}`);
  t.is(detail.sources[0].matched_on, null, 'the source that created the finding joined on nothing');
  t.regex(detail.sources[1].first_origin, /^import:\d{4}-/);
  t.deepEqual(detail.sources[1].matched_on, [{ kind: 'cwe_location', value: 'CWE-200 url:/files/.env' }]);
  t.deepEqual(detail.dedup.matched, [{ kind: 'cwe_location', value: 'CWE-200 url:/files/.env' }]);
  t.deepEqual(detail.dedup.keys.map((k: { kind: string }) => k.kind), ['rule', 'rule', 'cwe_location']);
  t.like(detail.evidence, { found_by: 'probe' }, 'the evidence stays the creating rule\'s');
  t.deepEqual(detail.status_history.map((h: { new_status: string }) => h.new_status), ['open']);

  // The same file again adds nothing: the nuclei source is seen again.
  const again = await upload(tenant.token, `format=nuclei&asset_id=${tenant.assetId}`, file);
  t.like(again.body.data, { created: 0, seen_again: 1 });
  const after = (await app.request('GET', `/api/findings/${id}`, { token: tenant.token })).body.data;
  t.is(after.sources.length, 2);
  t.true(after.sources[1].last_seen > after.sources[1].first_seen || after.sources[1].last_origin !== after.sources[1].first_origin);
  t.is((await app.request('GET', `/api/findings?asset_id=${tenant.assetId}`, { token: tenant.token })).body.meta.total, reports.length);

  // The scan again: its source is seen again, no finding added.
  const rescan = await scanReports(tenant, reports, Date.now() + 1);
  t.like(rescan.recorded, { created: 0, seenAgain: reports.length });
  const third = (await app.request('GET', `/api/findings/${id}`, { token: tenant.token })).body.data;
  t.is(third.sources[0].last_origin, `scan:${rescan.scanId}`);
});

test('the same tool\'s distinct rules stay distinct; a CVE joins reports of two tools; CVE ids are stored for enrichment', async (t) => {
  const tenant = await tenantWithAsset();
  const line = (template: string, cve: string) => `${JSON.stringify({
    'template-id': template, info: { name: template, severity: 'medium', classification: { 'cve-id': [cve], 'cvss-metrics': 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N' } },
    type: 'network', host: 'dedup.example:22', 'matched-at': 'dedup.example:22', port: '22', timestamp: '2026-12-01T10:00:00.000Z',
  })}\n`;
  const two = await upload(tenant.token, `format=nuclei&asset_id=${tenant.assetId}`, line('CVE-2018-15473', 'CVE-2018-15473') + line('openssh-user-enum', 'CVE-2018-15473'));
  t.like(two.body.data, { created: 2 }, 'two nuclei templates naming one CVE: nuclei says they are two checks');

  const sarif = JSON.stringify({
    version: '2.1.0',
    runs: [{
      tool: { driver: { name: 'Trivy', rules: [{ id: 'CVE-2018-15473', shortDescription: { text: 'openssh: user enumeration' } }] } },
      results: [{ ruleId: 'CVE-2018-15473', level: 'warning', message: { text: 'Package: openssh 7.7' }, locations: [{ physicalLocation: { artifactLocation: { uri: 'Dockerfile' } } }] }],
    }],
  });
  const joined = await app.request('POST', `/api/findings/import?format=sarif&asset_id=${tenant.assetId}`, { token: tenant.token, payload: sarif, headers: { 'content-type': 'application/json' } });
  t.is(joined.statusCode, 200, joined.raw);
  t.like(joined.body.data, { created: 0, seen_again: 1 });
  const list = (await app.request('GET', `/api/findings?asset_id=${tenant.assetId}`, { token: tenant.token })).body.data;
  t.is(list.length, 2);
  // Both nuclei findings name the CVE; the Trivy result joins one of them (the one with the lower id).
  const details = await Promise.all(list.map(async (f: { id: string }) => (await app.request('GET', `/api/findings/${f.id}`, { token: tenant.token })).body.data));
  const sourceTools = details.map((d) => d.sources.map((s: { tool: string }) => s.tool)).sort((a, b) => b.length - a.length);
  t.deepEqual(sourceTools, [['nuclei', 'sarif:Trivy'], ['nuclei']]);
  const detail = details.find((d) => d.sources.length === 2);
  t.deepEqual(detail.dedup.matched, [{ kind: 'cve', value: 'CVE-2018-15473' }]);
  const cves = await app.ctx.db('finding_cves').where({ tenant_id: tenant.tenantId }).orderBy('finding_id').select('finding_id', 'cve');
  t.deepEqual(cves.map((r: { cve: string }) => r.cve), ['CVE-2018-15473', 'CVE-2018-15473']);

  // Another tenant's findings are never candidates: its own asset, its own finding.
  const other = await tenantWithAsset();
  const theirs = await app.request('POST', `/api/findings/import?format=sarif&asset_id=${other.assetId}`, { token: other.token, payload: sarif, headers: { 'content-type': 'application/json' } });
  t.like(theirs.body.data, { created: 1, seen_again: 0 });
});
