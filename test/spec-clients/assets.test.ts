import test from 'ava';
import { createTestApp, type TestApp } from '../_helpers/harness/test-app.ts';
import { specFields, specListMeta } from '../_helpers/spec-clients/spec-fields.ts';

// Assets as a client written only from the API specification uses them: the spec's
// request fields, and only the spec's response fields read (docs/spec-differences.md).
let t0: TestApp;
let token: string;
test.before(async () => {
  t0 = await createTestApp();
  ({ token } = await t0.tenant());
});
test.after.always(async () => t0?.close());

const call = (method: string, url: string, payload?: unknown) => t0.request(method, url, { token, payload: payload as object });

const LIST_VIEW = { id: 'string', name: 'string', type: 'string', status: 'string', verified: 'boolean', risk_score: 'integer', tags: 'array', last_scan: 'timestamp|null', created_at: 'timestamp' } as const;

test('create → read → list → update → verify → bulk → delete with the spec\'s fields only', async (t) => {
  const created = await call('POST', '/api/assets', { name: 'spec-client.example.com', type: 'domain', tags: ['prod'], metadata: { owner: 'secops' } });
  t.is(created.statusCode, 201, created.raw);
  specFields(t, created.body.data, { id: 'string', name: 'string', type: 'string', status: 'string', verified: 'boolean', tags: 'array', created_at: 'timestamp' }, 'POST /api/assets');
  t.like(created.body.data, { status: 'pending_verification', verified: false, tags: ['prod'] });
  const id = created.body.data.id;

  const read = await call('GET', `/api/assets/${id}`);
  t.is(read.statusCode, 200);
  specFields(t, read.body.data, { ...LIST_VIEW, metadata: 'object', finding_summary: 'object', updated_at: 'timestamp' }, 'GET /api/assets/{id}');
  specFields(t, read.body.data.finding_summary, { critical: 'integer', high: 'integer', medium: 'integer', low: 'integer', info: 'integer' }, 'finding_summary');

  const list = await call('GET', '/api/assets?type=domain&tag=prod&status=pending_verification&search=spec-client&page=1&per_page=20&sort_by=name&sort_order=asc');
  t.is(list.statusCode, 200, list.raw);
  specListMeta(t, list.body, 'GET /api/assets', true);
  t.is(list.body.data.length, 1);
  specFields(t, list.body.data[0], LIST_VIEW, 'asset list view');
  t.false('metadata' in list.body.data[0], 'the list view omits metadata');

  const updated = await call('PUT', `/api/assets/${id}`, { tags: ['prod', 'pci'], metadata: { owner: 'blue' } });
  t.is(updated.statusCode, 200, updated.raw);
  t.deepEqual((await call('GET', `/api/assets/${id}`)).body.data.tags, ['prod', 'pci']);

  const verify = await call('POST', `/api/assets/${id}/verify`);
  t.is(verify.statusCode, 200, verify.raw);
  specFields(t, verify.body.data, { verification_method: 'string', verification_token: 'string', instructions: 'string' }, 'POST /api/assets/{id}/verify');

  const bulk = await call('POST', '/api/assets/bulk', { assets: [{ name: '198.51.100.20', type: 'ip', tags: ['edge'] }, { name: 'not a host', type: 'domain', tags: [] }] });
  t.is(bulk.statusCode, 200, bulk.raw);
  specFields(t, bulk.body.data, { imported: 'integer', failed: 'integer', errors: 'array' }, 'POST /api/assets/bulk');
  t.like(bulk.body.data, { imported: 1, failed: 1 });
  const csv = await t0.request('POST', '/api/assets/bulk', { token, payload: 'name,type,tags\n198.51.100.21,ip,"edge,dmz"\n', headers: { 'content-type': 'text/csv' } });
  t.is(csv.statusCode, 200, csv.raw);
  t.is(csv.body.data.imported, 1);

  const removed = await call('DELETE', `/api/assets/${id}`);
  t.true(removed.statusCode >= 200 && removed.statusCode < 300, removed.raw);
  t.is((await call('GET', `/api/assets/${id}`)).statusCode, 404);
});
