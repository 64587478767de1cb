import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { assetRepository } from '../../../core/assets/asset-repository.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp({ assets: { network: { minPrefixV4: 16, minPrefixV6: 48 } } });
});
test.after.always(async () => {
  await t0?.close();
});

const LIST_KEYS = ['created_at', 'id', 'last_scan', 'name', 'risk_score', 'status', 'tags', 'type', 'verified'];
const VECTOR_98 = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';

async function create(token: string, payload: Record<string, unknown>) {
  return t0.request('POST', '/api/assets', { token, payload });
}

test('create an asset: 201 with the spec fields, pending_verification, asset.created event', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const res = await create(token, { name: 'Bücher.Example', type: 'domain', tags: ['prod', 'prod', ' web '], metadata: { owner: 'Team-A' } });
  t.is(res.statusCode, 201);
  t.deepEqual(Object.keys(res.body.data).sort(), ['created_at', 'id', 'name', 'status', 'tags', 'type', 'verified']);
  t.regex(res.body.data.id, /^ast_[0-9A-Z]{26}$/);
  t.is(res.body.data.name, 'xn--bcher-kva.example');
  t.is(res.body.data.status, 'pending_verification');
  t.false(res.body.data.verified);
  t.deepEqual(res.body.data.tags, ['prod', 'web']);
  const events = await t0.ctx.db('events').where({ tenant_id: tenantId, kind: 'asset.created' });
  t.is(events.length, 1);
  t.is(events[0].asset_id, res.body.data.id);
  t.like(JSON.parse(events[0].data), { asset_id: res.body.data.id, name: 'xn--bcher-kva.example', type: 'domain' });
});

test('names are normalised per type', async (t) => {
  const { token } = await t0.tenant();
  const cases: Array<[string, string, string]> = [
    ['domain', 'WWW.Example.COM.', 'www.example.com'],
    ['ip', '192.0.2.10', '192.0.2.10'],
    ['ip', '2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['ip', '::ffff:192.0.2.11', '192.0.2.11'],
    ['url', 'HTTPS://Example.com:443/a/../b?q=1#frag', 'https://example.com/b?q=1'],
    ['url', 'http://bücher.example/', 'http://xn--bcher-kva.example/'],
    ['network', '10.1.2.3/24', '10.1.2.0/24'],
    ['network', '2001:DB8:1::5/64', '2001:db8:1::/64'],
  ];
  for (const [type, name, expected] of cases) {
    const res = await create(token, { name, type });
    t.is(res.statusCode, 201, `${type} ${name}: ${res.raw}`);
    t.is(res.body.data.name, expected);
  }
});

test('invalid names are 400 with a code per type and write nothing', async (t) => {
  const { token } = await t0.tenant();
  const cases: Array<[string, string, string]> = [
    ['domain', 'https://example.com', 'invalid_domain'],
    ['domain', 'exa mple.com', 'invalid_domain'],
    ['domain', 'localhost', 'invalid_domain'],
    ['domain', '-bad-.example', 'invalid_domain'],
    ['domain', '192.0.2.1', 'invalid_domain'],
    ['ip', '010.0.0.1', 'invalid_ip'],
    ['ip', '256.1.1.1', 'invalid_ip'],
    ['ip', 'fe80::1%eth0', 'invalid_ip'],
    ['url', 'ftp://example.com/', 'invalid_url'],
    ['url', 'https://user:pw@example.com/', 'invalid_url'],
    ['url', 'example.com/path', 'invalid_url'],
    ['network', '10.0.0.0', 'invalid_network'],
    ['network', '10.0.0.0/33', 'invalid_network'],
    ['network', '10.0.0.0/8', 'network_too_large'],
    ['network', '2001:db8::/32', 'network_too_large'],
  ];
  for (const [type, name, code] of cases) {
    const res = await create(token, { name, type });
    t.is(res.statusCode, 400, `${type} ${name}`);
    t.is(res.body.error.code, code, `${type} ${name}`);
  }
  for (const payload of [{ name: 'a.example' }, { name: 'a.example', type: 'host' }, { name: 'a.example', type: 'domain', tags: ['a,b'] }, { name: 'a.example', type: 'domain', extra: 1 }, { name: 'a.example', type: 'domain', metadata: [] }]) {
    const res = await create(token, payload);
    t.is(res.statusCode, 400, JSON.stringify(payload));
    t.is(res.body.error.code, 'validation_failed');
  }
  const list = await t0.request('GET', '/api/assets', { token });
  t.is(list.body.meta.total, 0);
});

test('the same asset twice in a tenant is 409; other tenants and other types are independent', async (t) => {
  const a = await t0.tenant();
  const b = await t0.tenant();
  t.is((await create(a.token, { name: 'dup.example', type: 'domain' })).statusCode, 201);
  const again = await create(a.token, { name: 'DUP.example.', type: 'domain' });
  t.is(again.statusCode, 409);
  t.is(again.body.error.code, 'asset_exists');
  t.is((await create(b.token, { name: 'dup.example', type: 'domain' })).statusCode, 201);
  t.is((await create(a.token, { name: 'http://dup.example/', type: 'url' })).statusCode, 201);
});

test('list: list view only, filters by type, tag, status and search over name and metadata', async (t) => {
  const { token } = await t0.tenant();
  await create(token, { name: 'shop.example', type: 'domain', tags: ['prod', 'web'], metadata: { owner: 'Payments Team' } });
  await create(token, { name: '198.51.100.7', type: 'ip', tags: ['prod'] });
  await create(token, { name: 'https://blog.example/', type: 'url', tags: ['staging'], metadata: { env: { region: 'eu-WEST' } } });
  await create(token, { name: '203.0.113.0/24', type: 'network' });
  const all = await t0.request('GET', '/api/assets', { token });
  t.is(all.statusCode, 200);
  t.is(all.body.meta.total, 4);
  t.deepEqual(Object.keys(all.body.data[0]).sort(), LIST_KEYS);
  t.is(all.body.data[0].last_scan, null);
  const names = async (query: string) => (await t0.request('GET', `/api/assets?${query}`, { token })).body.data.map((a: { name: string }) => a.name).sort();
  t.deepEqual(await names('type=ip'), ['198.51.100.7']);
  t.deepEqual(await names('tag=prod'), ['198.51.100.7', 'shop.example']);
  t.deepEqual(await names('tag=prod&type=domain'), ['shop.example']);
  t.deepEqual(await names('tag=nope'), []);
  t.deepEqual(await names('status=pending_verification'), ['198.51.100.7', '203.0.113.0/24', 'https://blog.example/', 'shop.example']);
  t.deepEqual(await names('status=active'), []);
  t.deepEqual(await names('search=SHOP'), ['shop.example']);
  t.deepEqual(await names('search=payments%20team'), ['shop.example']);
  t.deepEqual(await names('search=eu-west'), ['https://blog.example/']);
  t.deepEqual(await names('search=region'), ['https://blog.example/']);
  t.deepEqual(await names('search=%25'), []);
  t.deepEqual(await names('search=203.0.113'), ['203.0.113.0/24']);
  for (const bad of ['type=host', 'status=gone', 'sort_by=owner', 'sort_order=up', 'per_page=101', 'page=0', 'unknown=1']) {
    const res = await t0.request('GET', `/api/assets?${bad}`, { token });
    t.is(res.statusCode, 400, bad);
  }
});

test('list: sorting by name, type, created_at (default desc) and risk_score, and pagination', async (t) => {
  const { token } = await t0.tenant();
  const ids: string[] = [];
  for (const [name, type] of [['b.example', 'domain'], ['192.0.2.1', 'ip'], ['a.example', 'domain'], ['http://c.example/', 'url']]) {
    ids.push((await create(token, { name, type })).body.data.id);
    // Distinct created_at values: ids within one millisecond are not ordered.
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
  const order = async (query: string) => (await t0.request('GET', `/api/assets?${query}`, { token })).body.data.map((a: { name: string }) => a.name);
  t.deepEqual(await order('sort_by=name&sort_order=asc'), ['192.0.2.1', 'a.example', 'b.example', 'http://c.example/']);
  t.deepEqual(await order('sort_by=name&sort_order=desc'), ['http://c.example/', 'b.example', 'a.example', '192.0.2.1']);
  t.deepEqual((await order('sort_by=type&sort_order=asc')).slice(2), ['192.0.2.1', 'http://c.example/']);
  t.deepEqual(await order(''), ['http://c.example/', 'a.example', '192.0.2.1', 'b.example']);
  t.deepEqual(await order('sort_by=created_at&sort_order=asc'), ['b.example', '192.0.2.1', 'a.example', 'http://c.example/']);
  // Give a.example a critical and 192.0.2.1 a medium finding: risk order follows.
  await t0.request('POST', '/api/findings', { token, payload: { asset_id: ids[2], title: 'RCE', cvss_vector: VECTOR_98 } });
  await t0.request('POST', '/api/findings', { token, payload: { asset_id: ids[1], title: 'XSS', cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N' } });
  const byRisk = (await t0.request('GET', '/api/assets?sort_by=risk_score&sort_order=desc', { token })).body.data;
  t.deepEqual(byRisk.slice(0, 2).map((a: { name: string }) => a.name), ['a.example', '192.0.2.1']);
  t.true(byRisk[0].risk_score > byRisk[1].risk_score && byRisk[1].risk_score > 0);
  const p1 = await t0.request('GET', '/api/assets?per_page=3&page=1&sort_by=name&sort_order=asc', { token });
  const p2 = await t0.request('GET', '/api/assets?per_page=3&page=2&sort_by=name&sort_order=asc', { token });
  t.deepEqual(p1.body.meta, { total: 4, page: 1, per_page: 3, total_pages: 2 });
  t.is(p1.body.data.length, 3);
  t.deepEqual(p2.body.data.map((a: { name: string }) => a.name), ['http://c.example/']);
  const beyond = await t0.request('GET', '/api/assets?per_page=3&page=9', { token });
  t.deepEqual(beyond.body.data, []);
});

test('detail view, PUT tags/metadata/status, DELETE with findings', async (t) => {
  const { token } = await t0.tenant();
  const id = (await create(token, { name: 'detail.example', type: 'domain', tags: ['x'], metadata: { a: 1 } })).body.data.id;
  const got = await t0.request('GET', `/api/assets/${id}`, { token });
  t.is(got.statusCode, 200);
  t.deepEqual(Object.keys(got.body.data).sort(), [...LIST_KEYS, 'finding_summary', 'metadata', 'updated_at'].sort());
  t.deepEqual(got.body.data.finding_summary, { critical: 0, high: 0, medium: 0, low: 0, info: 0 });
  t.deepEqual(got.body.data.metadata, { a: 1 });

  const put = await t0.request('PUT', `/api/assets/${id}`, { token, payload: { tags: ['y', 'z'], metadata: { owner: 'sec' } } });
  t.is(put.statusCode, 200);
  t.deepEqual(put.body.data.tags, ['y', 'z']);
  t.deepEqual(put.body.data.metadata, { owner: 'sec' });
  t.is((await t0.request('GET', '/api/assets?tag=x', { token })).body.meta.total, 0);
  t.is((await t0.request('GET', '/api/assets?tag=z', { token })).body.meta.total, 1);
  t.is((await t0.request('GET', '/api/assets?search=sec', { token })).body.meta.total, 1);

  const active = await t0.request('PUT', `/api/assets/${id}`, { token, payload: { status: 'active' } });
  t.is(active.statusCode, 409);
  t.is(active.body.error.code, 'asset_not_verified');
  const inactive = await t0.request('PUT', `/api/assets/${id}`, { token, payload: { status: 'inactive' } });
  t.is(inactive.body.data.status, 'inactive');
  for (const payload of [{}, { name: 'other.example' }, { status: 'pending_verification' }, { tags: 'x' }]) {
    t.is((await t0.request('PUT', `/api/assets/${id}`, { token, payload })).statusCode, 400, JSON.stringify(payload));
  }

  const finding = await t0.request('POST', '/api/findings', { token, payload: { asset_id: id, title: 'Open port', cvss_vector: VECTOR_98 } });
  t.is(finding.statusCode, 201);
  await t0.request('PUT', `/api/findings/${finding.body.data.id}/status`, { token, payload: { status: 'confirmed', note: 'seen' } });
  const del = await t0.request('DELETE', `/api/assets/${id}`, { token });
  t.is(del.statusCode, 204);
  t.is(del.raw, '');
  t.is((await t0.request('GET', `/api/assets/${id}`, { token })).statusCode, 404);
  t.is((await t0.request('GET', `/api/findings/${finding.body.data.id}`, { token })).statusCode, 404);
  t.is((await t0.ctx.db('finding_notes').where({ finding_id: finding.body.data.id })).length, 0);
  t.is((await t0.ctx.db('finding_status_history').where({ finding_id: finding.body.data.id })).length, 0);
  t.is((await t0.ctx.db('asset_tags').where({ asset_id: id })).length, 0);
  t.is((await t0.request('DELETE', `/api/assets/${id}`, { token })).statusCode, 404);
});

test('tenant isolation: another tenant\'s asset is 404 everywhere and never listed', async (t) => {
  const a = await t0.tenant();
  const b = await t0.tenant();
  const id = (await create(a.token, { name: 'private.example', type: 'domain' })).body.data.id;
  t.is((await t0.request('GET', `/api/assets/${id}`, { token: b.token })).statusCode, 404);
  t.is((await t0.request('PUT', `/api/assets/${id}`, { token: b.token, payload: { tags: ['stolen'] } })).statusCode, 404);
  t.is((await t0.request('DELETE', `/api/assets/${id}`, { token: b.token })).statusCode, 404);
  t.is((await t0.request('POST', `/api/assets/${id}/verify`, { token: b.token })).statusCode, 404);
  t.is((await t0.request('GET', '/api/assets?search=private', { token: b.token })).body.meta.total, 0);
  const mine = await t0.request('GET', `/api/assets/${id}`, { token: a.token });
  t.deepEqual(mine.body.data.tags, []);
});

test('scopes, malformed ids and unknown ids', async (t) => {
  const reader = await t0.tenant({ scopes: ['assets:read'] });
  const res = await create(reader.token, { name: 'x.example', type: 'domain' });
  t.is(res.statusCode, 403);
  t.is(res.body.error.code, 'insufficient_scope');
  t.is((await t0.request('GET', '/api/assets', { token: reader.token })).statusCode, 200);
  const none = await t0.tenant({ scopes: ['findings:read'] });
  t.is((await t0.request('GET', '/api/assets', { token: none.token })).statusCode, 403);
  t.is((await t0.request('GET', '/api/assets', { token: null })).statusCode, 401);
  t.is((await t0.request('GET', '/api/assets/not-an-id')).statusCode, 400);
  t.is((await t0.request('GET', '/api/assets/ast_01M7ZD0NNG3X9SWF1J8WR7V1FB')).statusCode, 404);
});

test('detail GET reads the asset once: Last-Modified and body are the same version, a 304 reads it once too', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const { id } = (await create(token, { name: 'once.example', type: 'domain' })).body.data;
  // Old enough that its second is a safe Last-Modified (core/http/last-modified.ts).
  const at = Math.floor(Date.now() / 1000) * 1000 - 10_000 + 123;
  await t0.ctx.db('assets').where({ id }).update({ updated_at: at });
  const reads: string[] = [];
  const findById = assetRepository.findById;
  assetRepository.findById = (db, tenant, assetId, forUpdate) => {
    if (assetId === id) reads.push(tenant);
    return findById.call(assetRepository, db, tenant, assetId, forUpdate);
  };
  t.teardown(() => {
    assetRepository.findById = findById;
  });
  const res = await t0.request('GET', `/api/assets/${id}`, { token });
  t.is(res.statusCode, 200);
  t.is(res.body.data.updated_at, new Date(at).toISOString());
  t.is(res.headers['last-modified'], new Date(Math.floor(at / 1000) * 1000).toUTCString());
  t.deepEqual(reads, [tenantId]);
  const cond = await t0.request('GET', `/api/assets/${id}`, { token, headers: { 'if-modified-since': String(res.headers['last-modified']) } });
  t.is(cond.statusCode, 304);
  t.deepEqual(reads, [tenantId, tenantId]);
  // Another tenant: not found, read with that tenant's filter.
  const other = await t0.tenant();
  t.is((await t0.request('GET', `/api/assets/${id}`, { token: other.token })).statusCode, 404);
  t.true(reads.slice(2).every((tenant) => tenant === other.tenantId));
});
