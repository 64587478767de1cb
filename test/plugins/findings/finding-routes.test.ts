import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(async () => {
  await t0?.close();
});

const V = {
  critical: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', // 9.8
  high: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N', // 7.5
  medium: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N', // 6.1
  low: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N', // 3.1
  info: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N', // 0.0
};
const LIST_KEYS = ['asset', 'cvss', 'description', 'discovered_at', 'id', 'references', 'remediation', 'scan_id', 'severity', 'status', 'title', 'updated_at'];

async function setup() {
  const tenant = await t0.tenant();
  const asset = await t0.request('POST', '/api/assets', { token: tenant.token, payload: { name: `app-${Math.random().toString(36).slice(2)}.example`, type: 'domain' } });
  return { ...tenant, assetId: asset.body.data.id as string, assetName: asset.body.data.name as string };
}

async function add(token: string, payload: Record<string, unknown>) {
  const res = await t0.request('POST', '/api/findings', { token, payload });
  if (res.statusCode !== 201) throw new Error(res.raw);
  return res.body.data;
}

test('create a finding: score and severity from the vector, finding.new event, asset risk updated', async (t) => {
  const { token, tenantId, assetId, assetName } = await setup();
  const res = await t0.request('POST', '/api/findings', {
    token,
    payload: {
      asset_id: assetId, title: 'SQL injection in /login', description: 'The id parameter is injectable.', remediation: 'Use bound parameters.',
      cvss_vector: 'CVSS:3.1/A:H/I:H/C:H/S:U/UI:N/PR:N/AC:L/AV:N', evidence: { url: 'https://x.example/login', method: 'POST', parameter: 'id', payload: "' OR 1=1--", response_indicator: 'SQL syntax' },
      references: ['https://cwe.mitre.org/data/definitions/89.html'], tags: ['owasp-a03'],
    },
  });
  t.is(res.statusCode, 201);
  const f = res.body.data;
  t.is(f.cvss, 9.8);
  t.is(f.severity, 'critical');
  t.is(f.cvss_vector, V.critical, 'stored in canonical order');
  t.is(f.status, 'open');
  t.is(f.scan_id, null);
  t.deepEqual(f.asset, { id: assetId, name: assetName, type: 'domain' });
  const events = await t0.ctx.db('events').where({ tenant_id: tenantId, kind: 'finding.new' });
  t.is(events.length, 1);
  t.deepEqual(JSON.parse(events[0].data), { finding_id: f.id, title: 'SQL injection in /login', severity: 'critical', cvss: 9.8, asset: { id: assetId, name: assetName, type: 'domain' }, scan_id: null });
  const asset = (await t0.request('GET', `/api/assets/${assetId}`, { token })).body.data;
  t.is(asset.risk_score, 62);
  t.deepEqual(asset.finding_summary, { critical: 1, high: 0, medium: 0, low: 0, info: 0 });
});

test('bad findings are 400 and write nothing', async (t) => {
  const { token, assetId } = await setup();
  const other = await setup();
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ asset_id: assetId, title: 'x', cvss_vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }, 'invalid_cvss_vector'],
    [{ asset_id: assetId, title: 'x', cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H' }, 'invalid_cvss_vector'],
    [{ asset_id: assetId, title: 'x', cvss_vector: `${V.critical}/AV:N` }, 'invalid_cvss_vector'],
    [{ asset_id: assetId, title: 'x', cvss_vector: V.critical, severity: 'high' }, 'severity_mismatch'],
    [{ asset_id: other.assetId, title: 'x', cvss_vector: V.critical }, 'unknown_asset'],
    [{ asset_id: 'ast_01M7ZD0NNG3X9SWF1J8WR7V1FB', title: 'x', cvss_vector: V.critical }, 'unknown_asset'],
    [{ asset_id: assetId, cvss_vector: V.critical }, 'validation_failed'],
    [{ asset_id: assetId, title: 'x', cvss_vector: V.critical, status: 'fixed' }, 'validation_failed'],
    [{ asset_id: assetId, title: 'x', cvss_vector: V.critical, references: ['javascript:alert(1)'] }, 'validation_failed'],
    [{ asset_id: assetId, title: 'x', cvss_vector: V.critical, evidence: { cookie: 'x' } }, 'validation_failed'],
  ];
  for (const [payload, code] of cases) {
    const res = await t0.request('POST', '/api/findings', { token, payload });
    t.is(res.statusCode, 400, JSON.stringify(payload));
    t.is(res.body.error.code, code, JSON.stringify(payload));
  }
  t.is((await t0.request('GET', '/api/findings', { token })).body.meta.total, 0);
  t.is((await t0.request('GET', `/api/assets/${assetId}`, { token })).body.data.risk_score, 0);
});

test('list view, detail view, filters', async (t) => {
  const { token, assetId } = await setup();
  const a2 = (await t0.request('POST', '/api/assets', { token, payload: { name: '192.0.2.77', type: 'ip' } })).body.data.id;
  const scan = await t0.request('POST', '/api/scan/create', { token, payload: { asset_id: assetId, scan_type: 'dns' } });
  t.is(scan.statusCode, 201, scan.raw);
  const scanId = scan.body.data.scan_id as string;
  const crit = await add(token, { asset_id: assetId, title: 'Remote code execution', cvss_vector: V.critical, scan_id: scanId });
  const high = await add(token, { asset_id: assetId, title: 'Heartbleed', description: 'OpenSSL memory DISCLOSURE', cvss_vector: V.high });
  const med = await add(token, { asset_id: a2, title: 'Reflected XSS', cvss_vector: V.medium, status: 'confirmed' });
  const low = await add(token, { asset_id: a2, title: 'POODLE', cvss_vector: V.low });
  const info = await add(token, { asset_id: a2, title: 'TLS 1.3 supported', cvss_vector: V.info, status: 'resolved' });
  const list = await t0.request('GET', '/api/findings', { token });
  t.is(list.body.meta.total, 5);
  // The spec's keys, plus kev and epss from the feeds (issue 27: docs/feeds.md, "On findings").
  t.deepEqual(Object.keys(list.body.data[0]).sort(), [...LIST_KEYS, 'epss', 'kev'].sort());
  const detail = await t0.request('GET', `/api/findings/${high.id}`, { token });
  // The spec's keys, plus sources and dedup (issue 27: docs/finding-fingerprints.md).
  t.deepEqual(Object.keys(detail.body.data).sort(), [...LIST_KEYS, 'cvss_vector', 'dedup', 'epss', 'evidence', 'kev', 'notes', 'sources', 'status_history', 'tags'].sort());
  t.deepEqual(detail.body.data.sources, [], 'a finding created through the API has no tool source');
  t.deepEqual(detail.body.data.dedup, { keys: [], matched: [], merges: [] });
  t.is(detail.body.data.status_history.length, 1);
  t.like(detail.body.data.status_history[0], { old_status: null, new_status: 'open' });

  const ids = async (query: string) => (await t0.request('GET', `/api/findings?${query}`, { token })).body.data.map((f: { id: string }) => f.id).sort();
  t.deepEqual(await ids('severity=critical,HIGH'), [crit.id, high.id].sort());
  t.deepEqual(await ids('severity=info'), [info.id]);
  t.deepEqual(await ids('status=confirmed'), [med.id]);
  t.deepEqual(await ids(`asset_id=${a2}`), [med.id, low.id, info.id].sort());
  t.deepEqual(await ids(`scan_id=${scanId}`), [crit.id]);
  t.deepEqual(await ids('cvss_min=6.1'), [crit.id, high.id, med.id].sort());
  t.deepEqual(await ids('cvss_min=6.15'), [crit.id, high.id].sort());
  t.deepEqual(await ids('cvss_max=3.1'), [low.id, info.id].sort());
  t.deepEqual(await ids('cvss_min=3&cvss_max=7.5'), [high.id, med.id, low.id].sort());
  t.deepEqual(await ids('search=heartBLEED'), [high.id]);
  t.deepEqual(await ids('search=disclosure'), [high.id]);
  t.deepEqual(await ids('search=heartbl*'), [high.id]);
  t.deepEqual(await ids(`severity=low,medium&asset_id=${a2}&status=open`), [low.id]);
  for (const bad of ['search=_', 'search=in', 'search=%22a%20b%22', 'search=%2B-*', 'severity=severe', 'severity=high,,x', 'status=fixed', 'cvss_min=11', 'cvss_max=-1', 'asset_id=nope', 'sort_by=asset', 'per_page=0', 'foo=1']) {
    t.is((await t0.request('GET', `/api/findings?${bad}`, { token })).statusCode, 400, bad);
  }
});

test('sorting by severity rank, cvss, title and discovered_at; pagination', async (t) => {
  const { token, assetId } = await setup();
  const titles: Record<string, string> = { critical: 'b', high: 'd', medium: 'a', low: 'e', info: 'c' };
  const days: Record<string, number> = { critical: 3, high: 1, medium: 5, low: 2, info: 4 };
  for (const sev of ['low', 'critical', 'info', 'medium', 'high'] as const) {
    await add(token, { asset_id: assetId, title: titles[sev], cvss_vector: V[sev], discovered_at: new Date(Date.UTC(2026, 0, days[sev]!)).toISOString() });
  }
  const order = async (query: string) => (await t0.request('GET', `/api/findings?${query}`, { token })).body.data.map((f: { severity: string }) => f.severity);
  t.deepEqual(await order('sort_by=severity'), ['critical', 'high', 'medium', 'low', 'info']);
  t.deepEqual(await order('sort_by=severity&sort_order=asc'), ['info', 'low', 'medium', 'high', 'critical']);
  t.deepEqual(await order('sort_by=cvss&sort_order=asc'), ['info', 'low', 'medium', 'high', 'critical']);
  t.deepEqual(await order('sort_by=title&sort_order=asc'), ['medium', 'critical', 'info', 'high', 'low']);
  t.deepEqual(await order(''), ['medium', 'info', 'critical', 'low', 'high']);
  t.deepEqual(await order('sort_by=discovered_at&sort_order=asc'), ['high', 'low', 'critical', 'info', 'medium']);
  const p2 = await t0.request('GET', '/api/findings?sort_by=severity&per_page=2&page=2', { token });
  t.deepEqual(p2.body.meta, { total: 5, page: 2, per_page: 2, total_pages: 3 });
  t.deepEqual(p2.body.data.map((f: { severity: string }) => f.severity), ['medium', 'low']);
});

test('status changes: any to any, who and when, notes, history, event, risk recomputed', async (t) => {
  const { token, tenantId, assetId } = await setup();
  const f = await add(token, { asset_id: assetId, title: 'RCE', cvss_vector: V.critical });
  const me = (await t0.request('GET', '/api/user/me', { token })).body.data;
  const r1 = await t0.request('PUT', `/api/findings/${f.id}/status`, { token, payload: { status: 'resolved', note: 'Patched in 2.3.1' } });
  t.is(r1.statusCode, 200);
  t.deepEqual(Object.keys(r1.body.data).sort(), ['id', 'status', 'updated_at', 'updated_by']);
  t.is(r1.body.data.status, 'resolved');
  t.is(r1.body.data.updated_by, me.token.id);
  t.is((await t0.request('GET', `/api/assets/${assetId}`, { token })).body.data.risk_score, 0);
  const r2 = await t0.request('PUT', `/api/findings/${f.id}/status`, { token, payload: { status: 'open' } });
  t.is(r2.body.data.status, 'open');
  t.is((await t0.request('GET', `/api/assets/${assetId}`, { token })).body.data.risk_score, 62);
  const r3 = await t0.request('PUT', `/api/findings/${f.id}/status`, { token, payload: { status: 'open', note: 'Still reproducible' } });
  t.is(r3.statusCode, 200);
  const detail = (await t0.request('GET', `/api/findings/${f.id}`, { token })).body.data;
  t.is(detail.status, 'open');
  t.deepEqual(detail.notes.map((n: { text: string }) => n.text), ['Patched in 2.3.1', 'Still reproducible']);
  t.deepEqual(Object.keys(detail.notes[0]).sort(), ['author', 'created_at', 'id', 'text']);
  t.is(detail.notes[0].author, me.token.id);
  t.deepEqual(detail.status_history.map((h: { old_status: string | null; new_status: string }) => [h.old_status, h.new_status]), [[null, 'open'], ['open', 'resolved'], ['resolved', 'open']]);
  t.is(detail.status_history[1].note_id, detail.notes[0].id);
  t.is(detail.status_history[1].changed_by, me.token.id);
  const events = await t0.ctx.db('events').where({ tenant_id: tenantId, kind: 'finding.status_changed' }).orderBy('id');
  t.is(events.length, 2);
  t.like(JSON.parse(events[0].data), { finding_id: f.id, old_status: 'open', new_status: 'resolved' });
  for (const payload of [{}, { status: 'closed' }, { status: 'open', note: '' }, { status: 'open', extra: 1 }]) {
    t.is((await t0.request('PUT', `/api/findings/${f.id}/status`, { token, payload })).statusCode, 400, JSON.stringify(payload));
  }
  t.is((await t0.request('PUT', '/api/findings/fnd_01M7ZD0NNG3X9SWF1J8WR7V1FB/status', { token, payload: { status: 'open' } })).statusCode, 404);
  t.is((await t0.request('GET', `/api/findings/${f.id}`, { token })).body.data.notes.length, 2);
});

test('stats: totals, by severity, by status, 30-day trend from the history', async (t) => {
  const { token, assetId } = await setup();
  const made = [];
  for (const sev of ['critical', 'high', 'high', 'medium', 'low', 'info'] as const) made.push(await add(token, { asset_id: assetId, title: sev, cvss_vector: V[sev] }));
  await t0.request('PUT', `/api/findings/${made[0].id}/status`, { token, payload: { status: 'resolved' } });
  await t0.request('PUT', `/api/findings/${made[1].id}/status`, { token, payload: { status: 'resolved' } });
  await t0.request('PUT', `/api/findings/${made[1].id}/status`, { token, payload: { status: 'open' } });
  await t0.request('PUT', `/api/findings/${made[1].id}/status`, { token, payload: { status: 'resolved' } });
  await t0.request('PUT', `/api/findings/${made[2].id}/status`, { token, payload: { status: 'false_positive' } });
  const stats = await t0.request('GET', '/api/findings/stats', { token });
  t.is(stats.statusCode, 200);
  t.like(stats.body.data, {
    total: 6,
    by_severity: { critical: 1, high: 2, medium: 1, low: 1, info: 1 },
    by_status: { open: 3, confirmed: 0, resolved: 2, false_positive: 1, accepted_risk: 0 },
    trend: { last_30_days: { new: 6, resolved: 2, net_change: 4 } },
  });
  const empty = await t0.tenant();
  t.like((await t0.request('GET', '/api/findings/stats', { token: empty.token })).body.data.trend.last_30_days, { new: 0, resolved: 0, net_change: 0 });
  t.is((await t0.request('GET', '/api/findings/stats?x=1', { token })).statusCode, 400);
});

test('tenant isolation and scopes', async (t) => {
  const a = await setup();
  const b = await setup();
  const f = await add(a.token, { asset_id: a.assetId, title: 'secret finding', cvss_vector: V.high });
  t.is((await t0.request('GET', `/api/findings/${f.id}`, { token: b.token })).statusCode, 404);
  t.is((await t0.request('PUT', `/api/findings/${f.id}/status`, { token: b.token, payload: { status: 'resolved' } })).statusCode, 404);
  t.is((await t0.request('GET', '/api/findings?search=secret', { token: b.token })).body.meta.total, 0);
  t.is((await t0.request('GET', `/api/findings?asset_id=${a.assetId}`, { token: b.token })).body.meta.total, 0);
  t.is((await t0.request('GET', '/api/findings/stats', { token: b.token })).body.data.total, 0);
  t.is((await t0.request('GET', `/api/findings/${f.id}`, { token: a.token })).body.data.status, 'open');
  const reader = await t0.tenant({ scopes: ['findings:read'] });
  t.is((await t0.request('GET', '/api/findings', { token: reader.token })).statusCode, 200);
  t.is((await t0.request('PUT', `/api/findings/${f.id}/status`, { token: reader.token, payload: { status: 'open' } })).statusCode, 403);
  t.is((await t0.request('POST', '/api/findings', { token: reader.token, payload: { asset_id: a.assetId, title: 'x', cvss_vector: V.high } })).statusCode, 403);
  const assetsOnly = await t0.tenant({ scopes: ['assets:read'] });
  t.is((await t0.request('GET', '/api/findings/stats', { token: assetsOnly.token })).statusCode, 403);
  t.is((await t0.request('GET', '/api/findings/not-an-id', { token: a.token })).statusCode, 400);
});

test('conditional GET: lists and records answer 304 until they change; findings changes touch their asset', async (t) => {
  const { token, assetId } = await setup();
  const f = await add(token, { asset_id: assetId, title: 'Stale TLS', cvss_vector: V.medium });
  // Last-Modified only claims seconds that are safely over (core/http/last-modified.ts).
  await new Promise((resolve) => setTimeout(resolve, 3200));
  const urls = ['/api/findings', `/api/findings/${f.id}`, '/api/assets', `/api/assets/${assetId}`];
  const stamps: Record<string, string> = {};
  for (const url of urls) {
    const res = await t0.request('GET', url, { token });
    t.is(res.statusCode, 200, url);
    stamps[url] = String(res.headers['last-modified']);
    t.truthy(res.headers['last-modified'], url);
    const again = await t0.request('GET', url, { token, headers: { 'if-modified-since': stamps[url]! } });
    t.is(again.statusCode, 304, url);
  }
  await t0.request('PUT', `/api/findings/${f.id}/status`, { token, payload: { status: 'resolved' } });
  for (const url of urls) {
    const res = await t0.request('GET', url, { token, headers: { 'if-modified-since': stamps[url]! } });
    t.is(res.statusCode, 200, url);
  }
  const stats = await t0.request('GET', '/api/findings/stats', { token });
  t.is(stats.headers['last-modified'], undefined);
});
