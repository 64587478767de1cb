import { readFileSync } from 'node:fs';
import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

// Real tool outputs (provenance: test/fixtures/imports/README.md), imported through the API.
const fixture = (name: string) => readFileSync(new URL(`../../fixtures/imports/${name}`, import.meta.url), 'utf8');
const ZAP = fixture('zap-2.14.0-baseline.json');

let app: TestApp;
test.before(async () => {
  app = await createTestApp();
});
test.after.always(async () => {
  await app?.close();
});

async function tenantWithAsset(name = `imp-${Math.random().toString(36).slice(2)}.example`, type = 'domain') {
  const tenant = await app.tenant();
  const asset = await app.request('POST', '/api/assets', { token: tenant.token, payload: { name, type } });
  return { ...tenant, assetId: asset.body.data.id as string };
}

function upload(token: string, query: string, body: string, contentType = 'application/json') {
  return app.request('POST', `/api/findings/import?${query}`, { token, payload: body, headers: { 'content-type': contentType } });
}

async function eventCount(tenantId: string, kind: string): Promise<number> {
  const row = await app.ctx.db('events').where({ tenant_id: tenantId, kind }).count({ n: '*' }).first();
  return Number(row!.n);
}

test('a real ZAP report becomes one finding per alert instance, and importing it again creates nothing', async (t) => {
  const { token, tenantId, assetId } = await tenantWithAsset('chefs-dev.apps.silver.devops.gov.bc.ca');
  const report = JSON.parse(ZAP) as { site: Array<{ alerts: Array<{ alertRef: string; riskcode: string; instances: Array<Record<string, string>> }> }> };
  const alerts = report.site[0]!.alerts;
  const distinct = new Set(alerts.flatMap((a) => a.instances.map((i) => [a.alertRef, i.method, i.uri, i.param, i.attack].join('|'))));
  const high = alerts.filter((a) => a.riskcode === '2').reduce((n, a) => n + a.instances.length, 0);

  const first = await upload(token, 'format=zap&map_by_name=true', ZAP);
  t.is(first.statusCode, 200, first.raw);
  t.like(first.body.data, { format: 'zap', results: 54, created: distinct.size, seen_again: 0, reopened: 0, skipped: 0 });
  t.deepEqual(first.body.data.assets, [{ id: assetId, name: 'chefs-dev.apps.silver.devops.gov.bc.ca', results: 54 }]);
  t.is(await eventCount(tenantId, 'finding.new'), distinct.size);

  const list = await app.request('GET', `/api/findings?asset_id=${assetId}&severity=medium&per_page=100`, { token });
  t.is(list.body.meta.total, high, 'riskcode 2 is medium');
  const csp = list.body.data.find((f: { title: string }) => f.title === 'CSP: Wildcard Directive');
  t.is(csp.cvss, 4, 'a severity without a vector scores the floor of its band');
  const detail = (await app.request('GET', `/api/findings/${csp.id}`, { token })).body.data;
  t.is(detail.cvss_vector, '');
  t.like(detail.evidence, { url: 'https://chefs-dev.apps.silver.devops.gov.bc.ca/pr-1253', method: 'GET', parameter: 'content-security-policy', response_indicator: "default-src 'none'", plugin_id: '10055', alert_ref: '10055-4', confidence: 'high', tool: 'zap', tool_version: '2.14.0' });
  t.deepEqual(detail.tags, ['CWE-693', 'WASC-15']);
  t.true(detail.references.includes('https://www.w3.org/TR/CSP/'));
  t.regex(detail.remediation, /^Ensure that your web server/);
  t.deepEqual(detail.status_history.map((h: { old_status: string | null; new_status: string }) => [h.old_status, h.new_status]), [[null, 'open']]);
  const asset = (await app.request('GET', `/api/assets/${assetId}`, { token })).body.data;
  t.true(asset.risk_score > 0);
  t.is(asset.finding_summary.medium, high);

  const again = await upload(token, 'format=zap&map_by_name=true', ZAP);
  t.like(again.body.data, { results: 54, created: 0, seen_again: distinct.size, duplicates: 54 - distinct.size });
  t.is((await app.request('GET', `/api/findings?asset_id=${assetId}`, { token })).body.meta.total, distinct.size);
  t.is(await eventCount(tenantId, 'finding.new'), distinct.size, 'no finding.new on re-import');
});

test('nuclei JSON Lines: severity from the CVSS vector (3.0 scored as 3.1), targets mapped by host, nothing of the request kept', async (t) => {
  const { token, assetId } = await tenantWithAsset();
  const res = await upload(token, `format=nuclei&map=nuclei-example.com=${assetId}`, fixture('nuclei-v2-cve.jsonl'), 'application/x-ndjson');
  t.is(res.statusCode, 200, res.raw);
  t.like(res.body.data, { results: 2, created: 2 });
  const list = (await app.request('GET', `/api/findings?asset_id=${assetId}&sort_by=cvss`, { token })).body.data;
  const cve = (await app.request('GET', `/api/findings/${list[0].id}`, { token })).body.data;
  t.like(cve, { title: 'OpenSSH Username Enumeration v7.7', severity: 'medium', cvss: 5.3, cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N' });
  t.like(cve.evidence, { template_id: 'CVE-2018-15473', tool_cvss_vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N', cve_ids: ['CVE-2018-15473'] });
  t.true(cve.tags.includes('CVE-2018-15473'));
  t.is(cve.discovered_at, '2022-03-21T01:43:31.231Z', 'the result\'s own timestamp');
  t.like(list[1], { title: 'Exposed Prometheus metrics', severity: 'low', cvss: 0.1 });

  const dvwa = await tenantWithAsset();
  const big = await upload(dvwa.token, `format=nuclei&asset_id=${dvwa.assetId}`, fixture('nuclei-v3-dvwa.jsonl'));
  t.like(big.body.data, { results: 27, created: 27 });
  const rows = await app.ctx.db('findings').where({ asset_id: dvwa.assetId }).select('title', 'severity', 'evidence', 'description');
  const login = rows.find((r: { title: string }) => r.title === 'DVWA Default Login')!;
  t.is(login.severity, 'critical');
  // The file's requests, responses and curl commands hold session cookies and the default password.
  const secrets = [...new Set(fixture('nuclei-v3-dvwa.jsonl').match(/PHPSESSID=[0-9a-f]{16,}/g))].map((c) => c.slice('PHPSESSID='.length));
  t.true(secrets.length > 0);
  for (const r of rows) {
    const stored = `${r.evidence}${r.description}`;
    t.notRegex(stored, /password=password|curl -X|user_token=|"password"/);
    for (const s of secrets) t.false(stored.includes(s));
  }
});

test('nuclei -json-export arrays import too; one template with two extractions is two findings', async (t) => {
  const { token, assetId } = await tenantWithAsset('www.asdf.de');
  const res = await upload(token, 'format=nuclei&map_by_name=true', fixture('nuclei-v3-export.json'));
  t.like(res.body.data, { results: 6, created: 6, duplicates: 0 });
  const tls = (await app.request('GET', `/api/findings?asset_id=${assetId}&search=TLS%20Version`, { token })).body.data;
  t.is(tls.length, 2);
});

test('SARIF from Trivy, Grype, dependency-check and Semgrep: vectors, 0-10 scores, spelled-out metrics, and results written before their rules', async (t) => {
  const { token, assetId } = await tenantWithAsset();
  const trivy = await upload(token, `format=sarif&asset_id=${assetId}`, fixture('trivy-alpine-310.sarif'), 'application/sarif+json');
  t.like(trivy.body.data, { results: 4, created: 4 });
  const found = (await app.request('GET', `/api/findings?asset_id=${assetId}&search=CVE-2019-1549`, { token })).body.data;
  t.is(found.length, 2, 'libcrypto and libssl: same rule, same image, two packages');
  t.like(found[0], { title: 'CVE-2019-1549: openssl: information disclosure in fork()', severity: 'medium', cvss: 5.3 });
  t.is((await app.request('GET', `/api/findings/${found[0].id}`, { token })).body.data.cvss_vector, 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N');

  const grype = await tenantWithAsset();
  t.like((await upload(grype.token, `format=sarif&asset_id=${grype.assetId}`, fixture('grype-0.34.7.sarif'))).body.data, { results: 22, created: 22 });
  const critical = (await app.request('GET', `/api/findings?asset_id=${grype.assetId}&severity=critical`, { token: grype.token })).body.data;
  t.is(critical.length, 1);
  t.true(critical[0].cvss >= 9, 'security-severity is the score');

  const dc = await tenantWithAsset();
  t.like((await upload(dc.token, `format=sarif&asset_id=${dc.assetId}`, fixture('dependency-check-6.1.2.sarif'))).body.data, { results: 13, created: 13 });
  const jquery = (await app.request('GET', `/api/findings?asset_id=${dc.assetId}&search=CVE-2012-6708`, { token: dc.token })).body.data[0];
  t.like(jquery, { severity: 'medium', cvss: 6.1 });

  const semgrep = await tenantWithAsset();
  t.like((await upload(semgrep.token, `format=sarif&asset_id=${semgrep.assetId}`, fixture('semgrep-1.69.0.sarif'))).body.data, { results: 77 });
  const titles = await app.ctx.db('findings').where({ asset_id: semgrep.assetId }).distinct('title');
  t.true(titles.some((r: { title: string }) => r.title === 'Use of cryptographically weak pseudo-random number generator (PRNG)'), 'titles come from rules that follow the results');
});

test('a resolved finding seen again reopens only when the file saw it after the resolution', async (t) => {
  const { token, tenantId, assetId } = await tenantWithAsset('chefs-dev.apps.silver.devops.gov.bc.ca');
  await upload(token, 'format=zap&map_by_name=true', ZAP);
  const [one] = (await app.request('GET', `/api/findings?asset_id=${assetId}&per_page=1`, { token })).body.data;
  await app.request('PUT', `/api/findings/${one.id}/status`, { token, payload: { status: 'resolved' } });
  const res = await upload(token, 'format=zap&map_by_name=true', ZAP);
  t.is(res.body.data.reopened, 1, 'a ZAP report has no time zone-less date to trust: it is taken as seen now');
  const detail = (await app.request('GET', `/api/findings/${one.id}`, { token })).body.data;
  t.is(detail.status, 'open');
  t.deepEqual(detail.status_history.map((h: { new_status: string }) => h.new_status), ['open', 'resolved', 'open']);
  t.is(await eventCount(tenantId, 'finding.status_changed'), 2);

  const dvwa = await tenantWithAsset();
  await upload(dvwa.token, `format=nuclei&asset_id=${dvwa.assetId}`, fixture('nuclei-v3-dvwa.jsonl'));
  const [old] = (await app.request('GET', `/api/findings?asset_id=${dvwa.assetId}&per_page=1`, { token: dvwa.token })).body.data;
  await app.request('PUT', `/api/findings/${old.id}/status`, { token: dvwa.token, payload: { status: 'resolved' } });
  const again = await upload(dvwa.token, `format=nuclei&asset_id=${dvwa.assetId}`, fixture('nuclei-v3-dvwa.jsonl'));
  t.like(again.body.data, { created: 0, reopened: 0 }, 'results timestamped before the resolution do not reopen it');
  t.is((await app.request('GET', `/api/findings/${old.id}`, { token: dvwa.token })).body.data.status, 'resolved');
});

test('scan_id links the findings to one of the tenant\'s scans of that asset', async (t) => {
  const { token, assetId } = await tenantWithAsset();
  const scan = await app.request('POST', '/api/scan/create', { token, payload: { asset_id: assetId, scan_type: 'quick' } });
  t.is(scan.statusCode, 201, scan.raw);
  const scanId = scan.body.data.scan_id ?? scan.body.data.id;
  const res = await upload(token, `format=nuclei&asset_id=${assetId}&scan_id=${scanId}`, fixture('nuclei-v2-cve.jsonl'));
  t.is(res.statusCode, 200, res.raw);
  const results = await app.request('GET', `/api/scan/${scanId}/results`, { token });
  t.is(results.body.meta.total, 2);
  const list = (await app.request('GET', `/api/findings?scan_id=${scanId}`, { token })).body;
  t.is(list.meta.total, 2);
});
