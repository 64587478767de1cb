import { readFileSync } from 'node:fs';
import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp({ findings: { bulk: { maxItems: 1000 } } });
});
test.after.always(async () => {
  await t0?.close();
});

const reference = JSON.parse(readFileSync(new URL('../../fixtures/cvss/cvss31-all-base-vectors.json', import.meta.url), 'utf8')) as Array<{ vector: string; baseScore: number; severity: string }>;
const CRIT = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';

async function setup() {
  const tenant = await t0.tenant();
  const asset = await t0.request('POST', '/api/assets', { token: tenant.token, payload: { name: `bulk-${Math.random().toString(36).slice(2)}.example`, type: 'domain' } });
  return { ...tenant, assetId: asset.body.data.id as string };
}

test('every CVSS v3.1 base vector imports with the reference score and severity', async (t) => {
  const { token, tenantId, assetId } = await setup();
  const stored = new Map<string, { cvss: number; severity: string }>();
  for (let i = 0; i < reference.length; i += 1000) {
    const findings = reference.slice(i, i + 1000).map((r, j) => ({ asset_id: assetId, title: `v${i + j}`, cvss_vector: r.vector }));
    const res = await t0.request('POST', '/api/findings/bulk', { token, payload: { findings } });
    t.is(res.statusCode, 201, res.raw.slice(0, 300));
    t.is(res.body.data.created, findings.length);
    for (const f of res.body.data.findings) stored.set(f.cvss_vector, { cvss: f.cvss, severity: f.severity });
  }
  t.is(stored.size, reference.length);
  let mismatches = 0;
  for (const r of reference) {
    const got = stored.get(r.vector);
    const severity = r.severity === 'None' ? 'info' : r.severity.toLowerCase();
    if (!got || got.cvss !== r.baseScore || got.severity !== severity) mismatches += 1;
  }
  t.is(mismatches, 0);
  // The list agrees with what the import returned, and events were emitted one per finding.
  const crit = await t0.request('GET', '/api/findings?severity=critical&per_page=1', { token });
  t.is(crit.body.meta.total, reference.filter((r) => r.severity === 'Critical').length);
  const events = await t0.ctx.db('events').where({ tenant_id: tenantId, kind: 'finding.new' }).count({ n: '*' }).first();
  t.is(Number(events!.n), reference.length);
  const asset = (await t0.request('GET', `/api/assets/${assetId}`, { token })).body.data;
  t.is(asset.risk_score, 100);
  t.is(asset.finding_summary.critical, crit.body.meta.total);
});

test('bulk import is all or nothing and names the failing item', async (t) => {
  const { token, assetId } = await setup();
  const good = { asset_id: assetId, title: 'ok', cvss_vector: CRIT };
  const cases: Array<[unknown[], string, string]> = [
    [[good, { ...good, cvss_vector: 'CVSS:3.1/AV:X' }], 'invalid_cvss_vector', 'findings.1.cvss_vector'],
    [[good, good, { ...good, severity: 'low' }], 'severity_mismatch', 'findings.2.severity'],
    [[good, { ...good, asset_id: 'ast_01M7ZD0NNG3X9SWF1J8WR7V1FB' }], 'unknown_asset', 'findings.1.asset_id'],
    [[{ ...good, title: '' }], 'validation_failed', 'findings.0.title'],
  ];
  for (const [findings, code, field] of cases) {
    const res = await t0.request('POST', '/api/findings/bulk', { token, payload: { findings } });
    t.is(res.statusCode, 400, code);
    t.is(res.body.error.code, code);
    t.true(res.body.error.details.some((d: { field: string }) => d.field === field), JSON.stringify(res.body.error));
  }
  t.is((await t0.request('POST', '/api/findings/bulk', { token, payload: { findings: [] } })).statusCode, 400);
  t.is((await t0.request('POST', '/api/findings/bulk', { token, payload: { findings: Array(1001).fill(good) } })).statusCode, 400);
  t.is((await t0.request('GET', '/api/findings', { token })).body.meta.total, 0);
  const ok = await t0.request('POST', '/api/findings/bulk', { token, payload: { findings: [good, { ...good, title: 'two', scan_id: null }] } });
  t.is(ok.statusCode, 201);
  t.is(ok.body.data.created, 2);
});

test('a user token records the user id as author and updated_by', async (t) => {
  const { tenantId, token, assetId } = await setup();
  const user = await t0.ctx.services.admin.createUser(tenantId, { email: `analyst-${Date.now()}@example.test`, name: 'Analyst', password: 'correct horse battery', scopes: ['findings:read', 'findings:write'] });
  const issued = await t0.ctx.services.admin.createToken(tenantId, { name: 'analyst', scopes: ['findings:read', 'findings:write'], expiresAt: null, userId: user.id });
  const f = (await t0.request('POST', '/api/findings', { token, payload: { asset_id: assetId, title: 'x', cvss_vector: CRIT } })).body.data;
  const res = await t0.request('PUT', `/api/findings/${f.id}/status`, { token: issued.token, payload: { status: 'accepted_risk', note: 'Compensating control in place' } });
  t.is(res.body.data.updated_by, user.id);
  const detail = (await t0.request('GET', `/api/findings/${f.id}`, { token: issued.token })).body.data;
  t.is(detail.notes[0].author, user.id);
  t.is(detail.status_history[1].changed_by, user.id);
});
