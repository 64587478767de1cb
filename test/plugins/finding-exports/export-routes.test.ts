import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { parse } from 'csv-parse/sync';
import { PDFParse } from 'pdf-parse';
import { SEVERITY_VECTORS } from '../../_helpers/harness/severity-vectors.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

// Small thresholds so every path is reachable with a handful of findings.
const SYNC_MAX = 5;
let t0: TestApp;
let dir: string;
test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rampart-exports-'));
  t0 = await createTestApp({ exports: { directory: dir, syncMaxRows: SYNC_MAX, pdfMaxRows: 8, maxPendingPerTenant: 1 } });
});
test.after.always(async () => {
  await t0?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const VECTORS = SEVERITY_VECTORS;
type Sev = keyof typeof VECTORS;

let seq = 0;
/** A tenant (or the given one) with one fresh asset and these findings on it. */
async function seed(findings: Array<{ title: string; severity: Sev; description?: string; tags?: string[]; status?: string; evidence?: Record<string, unknown> }>, tenant?: { token: string; tenantId: string }) {
  const owner = tenant ?? (await t0.tenant());
  seq += 1;
  const asset = await t0.request('POST', '/api/assets', { token: owner.token, payload: { name: `exp-${seq}-${Date.now()}.example`, type: 'domain' } });
  const assetId = asset.body.data.id as string;
  const payload = {
    findings: findings.map((f) => ({
      asset_id: assetId, title: f.title, cvss_vector: VECTORS[f.severity], description: f.description ?? '', remediation: 'Patch it.',
      tags: f.tags ?? [], status: f.status ?? 'open', references: ['https://example.org/advisory'], evidence: f.evidence ?? { url: 'https://x.example/login', method: 'POST' },
    })),
  };
  const res = await t0.request('POST', '/api/findings/bulk', { token: owner.token, payload: { findings: payload.findings.map((f) => ({ ...f, evidence: { url: f.evidence.url } })) } });
  if (res.statusCode !== 201) throw new Error(res.raw);
  // A manual finding may carry only the spec's evidence keys; scanned and imported ones
  // carry more (port, service, files…), so the evidence is written as a scanner's would be.
  const created = res.body.data.findings as Array<{ id: string }>;
  for (const [i, f] of created.entries()) await t0.ctx.db('findings').where({ id: f.id }).update({ evidence: JSON.stringify(payload.findings[i]!.evidence) });
  return { ...owner, assetId, ids: res.body.data.findings.map((f: { id: string }) => f.id) as string[] };
}

async function exportRaw(token: string, payload: unknown) {
  return t0.server.inject({ method: 'POST', url: '/api/findings/export', headers: { authorization: `Bearer ${token}` }, payload: payload as object });
}

test('CSV export streams a file with the matching findings, sorted, with the right headers', async (t) => {
  const s = await seed([
    { title: 'low one', severity: 'low' },
    { title: 'critical one', severity: 'critical', tags: ['tls', 'web'] },
    { title: 'high one', severity: 'high' },
    { title: 'info one', severity: 'info' },
  ]);
  const res = await t0.request('POST', '/api/findings/export', { token: s.token, payload: { format: 'csv', filters: { asset_id: s.assetId, severity: 'critical,high,low', sort_by: 'severity' } } });
  t.is(res.statusCode, 200);
  t.is(res.headers['content-type'], 'text/csv; charset=utf-8');
  t.regex(String(res.headers['content-disposition']), /^attachment; filename="findings-\d{8}T\d{6}Z\.csv"$/);
  t.is(res.headers['cache-control'], 'no-store');
  const rows = parse(res.raw, { columns: true }) as Array<Record<string, string>>;
  t.deepEqual(rows.map((r) => r.title), ['critical one', 'high one', 'low one']);
  const crit = rows[0]!;
  t.is(crit.severity, 'critical');
  t.is(crit.cvss, '9.8');
  t.is(crit.cvss_vector, VECTORS.critical);
  t.is(crit.asset_id, s.assetId);
  t.is(crit.asset_type, 'domain');
  t.is(crit.tags, 'tls,web');
  t.is(crit.references, 'https://example.org/advisory');
  t.is(crit.evidence_method, 'POST');
  t.is(crit.status, 'open');
  t.regex(crit.discovered_at!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  // Ascending order and a CVSS range filter.
  const asc = await t0.request('POST', '/api/findings/export', { token: s.token, payload: { format: 'csv', filters: { asset_id: s.assetId, cvss_min: 3, cvss_max: 7.5, sort_by: 'cvss', sort_order: 'asc' } } });
  t.deepEqual((parse(asc.raw, { columns: true }) as Array<Record<string, string>>).map((r) => r.title), ['low one', 'high one']);
});

test('CSV export has a column for every evidence key of the exported findings, spec keys first, the rest sorted', async (t) => {
  const s = await seed([
    { title: 'open port', severity: 'high', evidence: { port: 6379, service: 'redis', version: '7.0.15', response_indicator: 'redis_version:7.0.15' } },
    { title: 'dump', severity: 'critical', evidence: { url: 'http://x.example/db.sql', files: ['db.sql', '.env'], '=cmd': 'x' } },
  ]);
  // Another tenant's evidence keys never shape this tenant's header.
  await seed([{ title: 'elsewhere', severity: 'low', evidence: { other_tenant_key: 'secret-ish' } }]);
  const res = await t0.request('POST', '/api/findings/export', { token: s.token, payload: { format: 'csv', filters: { asset_id: s.assetId, sort_by: 'title', sort_order: 'asc' } } });
  t.is(res.statusCode, 200);
  const header = res.raw.split('\r\n')[0]!.split(',');
  const evidenceColumns = header.filter((h) => h.startsWith('evidence_') || h.startsWith("'"));
  t.deepEqual(evidenceColumns, [
    'evidence_url', 'evidence_method', 'evidence_parameter', 'evidence_payload', 'evidence_response_indicator',
    'evidence_=cmd', 'evidence_files', 'evidence_port', 'evidence_service', 'evidence_version',
  ]);
  t.false(res.raw.includes('other_tenant_key'));
  const rows = parse(res.raw, { columns: true }) as Array<Record<string, string>>;
  const [dump, port] = rows;
  t.is(port!.evidence_port, '6379');
  t.is(port!.evidence_service, 'redis');
  t.is(port!.evidence_version, '7.0.15');
  t.is(port!.evidence_files, '');
  t.is(dump!.evidence_files, '["db.sql",".env"]');
  t.is(dump!.evidence_port, '');
});

test('CSV injection: a formula behind leading white space or a full-width sign is escaped too', async (t) => {
  // Spreadsheets skip leading blanks and read the full-width ＝ ＋ － ＠ as their ASCII twins.
  const s = await seed([
    { title: '＝HYPERLINK("http://evil.example")', severity: 'high', description: ' =1+1' },
    { title: '＠SUM(A1)', severity: 'high', description: '\u3000＋cmd' },
    { title: 'fine title', severity: 'high', description: '\t-2' },
  ]);
  const res = await t0.request('POST', '/api/findings/export', { token: s.token, payload: { format: 'csv', filters: { asset_id: s.assetId, sort_by: 'title', sort_order: 'asc' } } });
  t.is(res.statusCode, 200);
  const rows = parse(res.raw, { columns: true }) as Array<Record<string, string>>;
  const byTitle = new Map(rows.map((r) => [r.title!.replace(/^'/, ''), r]));
  t.is(byTitle.get('＝HYPERLINK("http://evil.example")')!.title, '\'＝HYPERLINK("http://evil.example")');
  t.is(byTitle.get('＝HYPERLINK("http://evil.example")')!.description, "' =1+1");
  t.is(byTitle.get('＠SUM(A1)')!.title, "'＠SUM(A1)");
  t.is(byTitle.get('＠SUM(A1)')!.description, "'\u3000＋cmd");
  t.is(byTitle.get('fine title')!.title, 'fine title');
  t.is(byTitle.get('fine title')!.description, "'\t-2");
});

test('CSV cells that a spreadsheet would evaluate are escaped (CSV injection)', async (t) => {
  const s = await seed([
    { title: '=HYPERLINK("http://evil.example","click")', severity: 'high', description: '+cmd|\' /C calc\'!A0' },
    { title: '@SUM(1+1)', severity: 'high', description: '-2+3' },
    { title: 'plain, "quoted" title', severity: 'high', description: 'line one\nline two' },
  ]);
  const res = await t0.request('POST', '/api/findings/export', { token: s.token, payload: { format: 'csv', filters: { asset_id: s.assetId, sort_by: 'title', sort_order: 'asc' } } });
  t.is(res.statusCode, 200);
  const rows = parse(res.raw, { columns: true }) as Array<Record<string, string>>;
  const byTitle = new Map(rows.map((r) => [r.title!.replace(/^'/, ''), r]));
  t.is(byTitle.get('=HYPERLINK("http://evil.example","click")')!.title, '\'=HYPERLINK("http://evil.example","click")');
  t.is(byTitle.get('=HYPERLINK("http://evil.example","click")')!.description, '\'+cmd|\' /C calc\'!A0');
  t.is(byTitle.get('@SUM(1+1)')!.title, '\'@SUM(1+1)');
  t.is(byTitle.get('@SUM(1+1)')!.description, '\'-2+3');
  // Ordinary values are untouched and RFC 4180 quoting survives the round trip.
  t.is(byTitle.get('plain, "quoted" title')!.title, 'plain, "quoted" title');
  t.is(byTitle.get('plain, "quoted" title')!.description, 'line one\nline two');
  t.false(/^[=+\-@]/m.test(res.raw.split('\r\n').slice(1).join('\n').replace(/"[^"]*"/g, '')));
});

test('JSON export is one array of finding records and applies every filter', async (t) => {
  const s = await seed([
    { title: 'SQL injection in login', severity: 'critical', description: 'The id parameter is injectable.' },
    { title: 'Weak TLS', severity: 'medium', description: 'Supports TLS 1.0.' },
    { title: 'Missing header', severity: 'low', description: 'No HSTS header on login page.', status: 'resolved' },
  ]);
  const res = await t0.request('POST', '/api/findings/export', { token: s.token, payload: { format: 'json', filters: { asset_id: s.assetId } } });
  t.is(res.statusCode, 200);
  t.is(res.headers['content-type'], 'application/json; charset=utf-8');
  t.regex(String(res.headers['content-disposition']), /filename="findings-.*\.json"$/);
  t.true(Array.isArray(res.body));
  t.is(res.body.length, 3);
  const record = res.body.find((f: { title: string }) => f.title === 'SQL injection in login');
  t.deepEqual(Object.keys(record).sort(), ['asset', 'cvss', 'cvss_vector', 'description', 'discovered_at', 'evidence', 'id', 'references', 'remediation', 'scan_id', 'severity', 'status', 'tags', 'title', 'updated_at']);
  t.is(record.cvss, 9.8);
  t.is(record.asset.id, s.assetId);
  t.deepEqual(record.evidence, { url: 'https://x.example/login', method: 'POST' });
  const titles = async (filters: Record<string, unknown>) =>
    (await t0.request('POST', '/api/findings/export', { token: s.token, payload: { format: 'json', filters: { asset_id: s.assetId, sort_by: 'title', sort_order: 'asc', ...filters } } })).body.map((f: { title: string }) => f.title);
  t.deepEqual(await titles({ status: 'resolved' }), ['Missing header']);
  t.deepEqual(await titles({ search: 'LOGIN' }), ['Missing header', 'SQL injection in login']);
  t.deepEqual(await titles({ severity: ['medium', 'low'] }), ['Missing header', 'Weak TLS']);
  t.deepEqual(await titles({ cvss_min: 6.1 }), ['SQL injection in login', 'Weak TLS']);
  t.deepEqual(await titles({ page: 2, per_page: 2 }), ['Weak TLS']);
  t.deepEqual(await titles({ scan_id: 'scn_none' }), []);
  const empty = await t0.request('POST', '/api/findings/export', { token: s.token, payload: { format: 'json', filters: { asset_id: s.assetId, search: 'nothing matches this' } } });
  t.deepEqual(empty.body, []);
});

test('PDF export has the summary charts and every finding\'s details, with non-ASCII text', async (t) => {
  const s = await seed([
    { title: 'Exposed admin console at /müller → ✓', severity: 'critical', description: 'Anyone can reach the console.' },
    { title: 'Directory listing', severity: 'medium', description: 'Index of / is browsable.', status: 'confirmed' },
  ]);
  const res = await exportRaw(s.token, { format: 'pdf', filters: { asset_id: s.assetId } });
  t.is(res.statusCode, 200);
  t.is(res.headers['content-type'], 'application/pdf');
  t.regex(String(res.headers['content-disposition']), /filename="findings-.*\.pdf"$/);
  t.is(res.rawPayload.subarray(0, 5).toString(), '%PDF-');
  const parser = new PDFParse({ data: new Uint8Array(res.rawPayload) });
  try {
    const { text, total } = await parser.getText();
    t.true(total >= 3, 'management page, charts page, details');
    // The first page speaks to management: scope and dates in words, posture, the two tables.
    const first = (await parser.getText({ partial: [1] })).text.replace(/\s+/g, ' ');
    for (const expected of ['Security findings: management summary', 'Risk posture: critical.', '2 findings in scope are open or confirmed, 1 critical and 0 high',
      'Top 10 unresolved risks', 'Riskiest assets', 'Scope: Findings on asset “exp-', 'listed by discovery date, newest first', ' UTC']) {
      t.true(first.includes(expected), `first page lacks ${JSON.stringify(expected)}:\n${first}`);
    }
    t.false(first.includes('asset_id='), 'filters are in words, not query syntax');
    t.false(first.includes('sort_by'));
    for (const expected of ['Findings by severity', 'Findings by status', '30-day trend: 2 new, 0 resolved, net change +2', 'open: 1 (50%)', 'confirmed: 1 (50%)',
      'Exposed admin console at /müller → ✓', 'Anyone can reach the console.', 'Directory listing', 'CRITICAL · CVSS 9.8', 'Remediation', 'Patch it.', 'https://example.org/advisory']) {
      t.true(text.includes(expected), `PDF text lacks ${JSON.stringify(expected)}`);
    }
  } finally {
    await parser.destroy();
  }
});

test('bad input is a 400 and writes nothing; scope and ids are checked', async (t) => {
  const s = await seed([{ title: 'x', severity: 'low' }]);
  const bad: unknown[] = [
    {},
    { format: 'xml' },
    { format: 'csv', filters: { severity: 'urgent' } },
    { format: 'csv', filters: { cvss_min: 11 } },
    { format: 'csv', filters: { sort_by: 'risk' } },
    { format: 'csv', filters: { unknown_key: 1 } },
    { format: 'csv', filters: { page: 2 } },
    { format: 'csv', filters: { per_page: 101, page: 1 } },
    { format: 'csv', filters: { asset_id: 'not-an-id' } },
    { format: 'csv', extra: true },
  ];
  for (const payload of bad) {
    const res = await t0.request('POST', '/api/findings/export', { token: s.token, payload });
    t.is(res.statusCode, 400, JSON.stringify(payload));
    t.is(res.body.status, 'error');
  }
  t.is(await t0.ctx.db('finding_exports').where({ tenant_id: s.tenantId }).count({ n: '*' }).first().then((r) => Number(r!.n)), 0);
  const reader = await t0.tenant({ scopes: ['assets:read'] });
  const forbidden = await t0.request('POST', '/api/findings/export', { token: reader.token, payload: { format: 'csv' } });
  t.is(forbidden.statusCode, 403);
  t.is((await t0.request('POST', '/api/findings/export', { token: null, payload: { format: 'csv' } })).statusCode, 401);
  t.is((await t0.request('GET', '/api/findings/exports/bogus', { token: s.token })).statusCode, 400);
  t.is((await t0.request('GET', '/api/findings/exports/exp_01M7ZD0NNG3X9SWF1J8WR7V1FB', { token: s.token })).statusCode, 404);
  t.is((await t0.request('GET', '/api/findings/exports/exp_01M7ZD0NNG3X9SWF1J8WR7V1FB/download', { token: s.token })).statusCode, 404);
});

test('a PDF above pdfMaxRows is refused with export_too_large', async (t) => {
  const s = await seed(Array.from({ length: 9 }, (_, i) => ({ title: `p${i}`, severity: 'low' as Sev })));
  const res = await t0.request('POST', '/api/findings/export', { token: s.token, payload: { format: 'pdf', filters: { asset_id: s.assetId } } });
  t.is(res.statusCode, 400);
  t.is(res.body.error.code, 'export_too_large');
  t.is(res.body.error.max_rows, 8);
});

test.serial('large exports run in the background: 202, status, download when ready, expiry; other tenants see 404', async (t) => {
  const s = await seed(Array.from({ length: SYNC_MAX + 3 }, (_, i) => ({ title: `bulk finding ${i}`, severity: (i % 2 ? 'high' : 'critical') as Sev })));
  const other = await seed([{ title: 'other tenant finding', severity: 'critical' }]);
  const res = await t0.request('POST', '/api/findings/export', { token: s.token, payload: { format: 'csv', filters: { asset_id: s.assetId, severity: 'critical,high' } } });
  t.is(res.statusCode, 202);
  const job = res.body.data;
  t.regex(job.id, /^exp_/);
  t.is(job.status, 'queued');
  t.is(job.total_rows, SYNC_MAX + 3);
  t.is(job.row_count, null);
  t.is(job.status_url, `/api/findings/exports/${job.id}`);
  t.is(job.download_url, `/api/findings/exports/${job.id}/download`);
  t.is(res.headers.location, job.status_url);
  // The worker is not running yet: not ready, and the per-tenant cap of 1 pending export applies.
  const early = await t0.request('GET', job.download_url, { token: s.token });
  t.is(early.statusCode, 409);
  t.is(early.body.error.code, 'export_not_ready');
  t.is(early.body.error.export_status, 'queued');
  const second = await t0.request('POST', '/api/findings/export', { token: s.token, payload: { format: 'json', filters: { asset_id: s.assetId } } });
  t.is(second.statusCode, 409);
  t.is(second.body.error.code, 'export_limit_reached');
  // Tenant isolation: another tenant cannot see or fetch it.
  t.is((await t0.request('GET', job.status_url, { token: other.token })).statusCode, 404);
  t.is((await t0.request('GET', job.download_url, { token: other.token })).statusCode, 404);

  t0.ctx.background.exports.start();
  let status = job;
  for (let i = 0; i < 200 && (status.status === 'queued' || status.status === 'running'); i++) {
    await new Promise((r) => setTimeout(r, 25));
    status = (await t0.request('GET', job.status_url, { token: s.token })).body.data;
  }
  t.is(status.status, 'completed');
  t.is(status.row_count, SYNC_MAX + 3);
  t.true(status.size_bytes > 0);
  t.truthy(status.completed_at);
  t.true(Date.parse(status.expires_at) > Date.parse(status.completed_at));

  const file = await t0.request('GET', job.download_url, { token: s.token });
  t.is(file.statusCode, 200);
  t.is(file.headers['content-type'], 'text/csv; charset=utf-8');
  t.is(file.headers['content-disposition'], `attachment; filename="findings-${job.id}.csv"`);
  t.is(Number(file.headers['content-length']), status.size_bytes);
  const rows = parse(file.raw, { columns: true }) as Array<Record<string, string>>;
  t.is(rows.length, SYNC_MAX + 3);
  t.true(rows.every((r) => r.asset_id === s.assetId));
  const path = join(dir, s.tenantId, `${job.id}.csv`);
  t.true(existsSync(path), 'file stored under the tenant folder');

  // Expiry: past expires_at the download answers 410 at once; the sweep deletes the file.
  await t0.ctx.db('finding_exports').where({ id: job.id }).update({ expires_at: Date.now() - 1000 });
  const gone = await t0.request('GET', job.download_url, { token: s.token });
  t.is(gone.statusCode, 410);
  t.is(gone.body.error.code, 'export_expired');
  t.true((await t0.ctx.services.exports.sweepExpired()) >= 1);
  t.false(existsSync(path));
  const expired = (await t0.request('GET', job.status_url, { token: s.token })).body.data;
  t.is(expired.status, 'expired');
  t.is((await t0.request('GET', job.download_url, { token: s.token })).statusCode, 410);
});

test('exports of one tenant never include another tenant\'s findings', async (t) => {
  const a = await seed([{ title: 'tenant A secret', severity: 'critical' }]);
  const b = await seed([{ title: 'tenant B finding', severity: 'critical' }]);
  for (const format of ['csv', 'json']) {
    const res = await t0.request('POST', '/api/findings/export', { token: b.token, payload: { format, filters: {} } });
    t.is(res.statusCode, 200);
    t.true(res.raw.includes('tenant B finding'));
    t.false(res.raw.includes('tenant A secret'));
  }
  // Filtering by the other tenant's asset finds nothing rather than leaking it.
  const cross = await t0.request('POST', '/api/findings/export', { token: b.token, payload: { format: 'json', filters: { asset_id: a.assetId } } });
  t.deepEqual(cross.body, []);
});
