import test from 'ava';
import { createTestApp, type TestApp } from '../_helpers/harness/test-app.ts';
import { specFields, specListMeta } from '../_helpers/spec-clients/spec-fields.ts';

// Findings as a spec-only client uses them. The spec has no request that creates a
// finding (scans record them); the harness records two through Rampart's own
// POST /api/findings, then everything else is the spec's.
let t0: TestApp;
let token: string;
let assetId: string;
test.before(async () => {
  t0 = await createTestApp();
  ({ token } = await t0.tenant());
  assetId = (await t0.request('POST', '/api/assets', { token, payload: { name: '198.51.100.30', type: 'ip' } })).body.data.id;
  for (const [title, vector] of [['Redis without auth', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'], ['Banner disclosure', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N']]) {
    const res = await t0.request('POST', '/api/findings', { token, payload: { asset_id: assetId, title, cvss_vector: vector } });
    if (res.statusCode !== 201) throw new Error(res.raw);
  }
});
test.after.always(async () => t0?.close());

const call = (method: string, url: string, payload?: unknown) => t0.request(method, url, { token, payload: payload as object });
const LIST_VIEW = { id: 'string', title: 'string', severity: 'string', cvss: 'number', status: 'string', asset: 'object', scan_id: 'string|null', discovered_at: 'timestamp', updated_at: 'timestamp' } as const;

test('list → read → change status → stats → export with the spec\'s fields only', async (t) => {
  const list = await call('GET', `/api/findings?severity=critical,high&status=open&asset_id=${assetId}&cvss_min=9&cvss_max=10&search=redis&page=1&per_page=20&sort_by=cvss&sort_order=desc`);
  t.is(list.statusCode, 200, list.raw);
  specListMeta(t, list.body, 'GET /api/findings', true);
  t.is(list.body.data.length, 1);
  const item = list.body.data[0];
  specFields(t, item, LIST_VIEW, 'finding list view');
  specFields(t, item.asset, { id: 'string', name: 'string', type: 'string' }, 'finding.asset');
  t.like(item, { severity: 'critical', cvss: 9.8 });

  const read = await call('GET', `/api/findings/${item.id}`);
  t.is(read.statusCode, 200);
  specFields(t, read.body.data, { ...LIST_VIEW, cvss_vector: 'string', description: 'string', remediation: 'string', evidence: 'object', references: 'array', tags: 'array', notes: 'array' }, 'GET /api/findings/{id}');

  const changed = await call('PUT', `/api/findings/${item.id}/status`, { status: 'confirmed', note: 'reproduced' });
  t.is(changed.statusCode, 200, changed.raw);
  specFields(t, changed.body.data, { id: 'string', status: 'string', updated_at: 'timestamp', updated_by: 'string' }, 'PUT /api/findings/{id}/status');
  t.is((await call('GET', `/api/findings/${item.id}`)).body.data.status, 'confirmed');

  const stats = await call('GET', '/api/findings/stats');
  t.is(stats.statusCode, 200);
  specFields(t, stats.body.data, { total: 'integer', by_severity: 'object', by_status: 'object', trend: 'object' }, 'stats');
  specFields(t, stats.body.data.trend.last_30_days, { new: 'integer', resolved: 'integer', net_change: 'integer' }, 'stats.trend.last_30_days');
  t.like(stats.body.data, { total: 2, by_status: { confirmed: 1, open: 1 } });

  // A small export answers the file itself; a large one is asynchronous (docs/spec-differences.md).
  const exported = await call('POST', '/api/findings/export', { format: 'csv', filters: { severity: 'critical' } });
  t.is(exported.statusCode, 200, exported.raw);
  t.regex(String(exported.headers['content-type']), /^text\/csv/);
  t.regex(exported.raw, /Redis without auth/);
  t.notRegex(exported.raw, /Banner disclosure/);
});
