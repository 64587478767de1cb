import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { writeProject, type ProjectPackage, type SmallProject } from '../../_helpers/inventory/sbom-generators.ts';

// Two releases of one application, both real npm trees: v2 upgrades debug and ms, drops commander, adds @hapi/boom (+ hoek).
const V1: ProjectPackage[] = [{ name: 'debug', from: 'knex/node_modules/debug' }, { name: 'ms', from: 'knex/node_modules/ms' }, { name: 'semver' }, { name: 'commander' }];
const V2: ProjectPackage[] = [{ name: 'debug' }, { name: 'ms' }, { name: 'semver' }, { name: '@hapi/boom' }, { name: '@hapi/hoek' }];

let app: TestApp;
let v1: SmallProject;
let v2: SmallProject;
const docs: Record<string, string> = {};

test.before(async () => {
  app = await createTestApp();
  v1 = await writeProject('shop-api', '1.0.0', V1, ['debug', 'semver', 'commander']);
  v2 = await writeProject('shop-api', '2.0.0', V2, ['debug', 'semver', '@hapi/boom']);
  docs.v1cdx = await v1.npmSbom('cyclonedx');
  docs.v1spdx = await v1.npmSbom('spdx');
  docs.v2spdx = await v2.npmSbom('spdx');
  docs.v2cdx14 = await v2.cyclonedxNpm('1.4');
  docs.v2cdx16 = await v2.cyclonedxNpm('1.6');
});
test.after.always(async () => {
  await Promise.all([v1?.remove(), v2?.remove()]);
  await app?.close();
});

async function tenantWithAssets(...names: string[]) {
  const tenant = await app.tenant();
  const ids: string[] = [];
  for (const name of names) ids.push((await app.request('POST', '/api/assets', { token: tenant.token, payload: { name: `${name}-${Math.random().toString(36).slice(2)}.example`, type: 'domain' } })).body.data.id);
  return { ...tenant, assets: ids };
}

const upload = (token: string, assetId: string, body: string, contentType = 'application/json') =>
  app.request('POST', `/api/assets/${assetId}/sbom`, { token, payload: body, headers: { 'content-type': contentType } });

async function inventory(token: string, assetId: string) {
  const res = await app.request('GET', `/api/assets/${assetId}/components?per_page=100`, { token });
  return res.body.data as Array<{ id: string; name: string; version: string; purl: string; package: string; licenses: string[]; direct: boolean }>;
}

test('npm sbom (CycloneDX 1.5) becomes the asset inventory: names, versions, package URLs, licences, direct dependencies and edges', async (t) => {
  const { token, assets: [asset] } = await tenantWithAssets('api');
  const res = await upload(token, asset!, docs.v1cdx!, 'application/vnd.cyclonedx+json');
  t.is(res.statusCode, 200, res.raw);
  t.like(res.body.data.sbom, { format: 'cyclonedx', spec_version: '1.5', status: 'current', component_count: 4, subject: { version: '1.0.0' } });
  t.regex(res.body.data.sbom.tool, /npm cli 11\./);
  t.deepEqual(res.body.data.changes, { added: 4, removed: 0, upgraded: 0, downgraded: 0, changed: 0 });
  const rows = await inventory(token, asset!);
  t.deepEqual(rows.map((r) => `${r.name}@${r.version}`), ['commander@14.0.3', 'debug@4.3.4', 'ms@2.1.2', 'semver@7.8.6']);
  const debug = rows.find((r) => r.name === 'debug')!;
  t.like(debug, { purl: 'pkg:npm/debug@4.3.4', package: 'pkg:npm/debug', licenses: ['MIT'], direct: true });
  t.like(rows.find((r) => r.name === 'ms'), { direct: false, licenses: ['MIT'] });
  t.deepEqual(rows.find((r) => r.name === 'semver')!.licenses, ['ISC']);
  const detail = await app.request('GET', `/api/components/${debug.id}`, { token });
  t.is(detail.statusCode, 200, detail.raw);
  t.deepEqual(detail.body.data.depends_on.map((c: { name: string }) => c.name), ['ms']);
  const ms = await app.request('GET', `/api/components/${rows.find((r) => r.name === 'ms')!.id}`, { token });
  t.deepEqual(ms.body.data.depended_on_by.map((c: { name: string }) => c.name), ['debug']);
});

test('a new upload replaces the inventory and the history says what was added, removed and upgraded', async (t) => {
  const { token, assets: [asset] } = await tenantWithAssets('shop');
  t.is((await upload(token, asset!, docs.v1spdx!, 'application/spdx+json')).statusCode, 200);
  const first = (await inventory(token, asset!)).map((r) => r.id);
  const res = await upload(token, asset!, docs.v2spdx!);
  t.is(res.statusCode, 200, res.raw);
  t.like(res.body.data.sbom, { format: 'spdx', spec_version: '2.3', component_count: 5, subject: { name: 'shop-api', version: '2.0.0' } });
  t.deepEqual(res.body.data.changes, { added: 2, removed: 1, upgraded: 2, downgraded: 0, changed: 0 });
  const rows = await inventory(token, asset!);
  t.deepEqual(rows.map((r) => `${r.name}@${r.version}`), ['@hapi/boom@10.0.1', '@hapi/hoek@11.0.7', 'debug@4.4.3', 'ms@2.1.3', 'semver@7.8.6']);
  t.like(rows[0], { purl: 'pkg:npm/%40hapi/boom@10.0.1', package: 'pkg:npm/%40hapi/boom', licenses: ['BSD-3-Clause'], direct: true });
  // The replaced inventory's components are gone.
  t.is((await app.request('GET', `/api/components/${first[0]}`, { token })).statusCode, 404);

  const changes = await app.request('GET', `/api/assets/${asset}/component-changes?sbom_id=${res.body.data.sbom.id}`, { token });
  t.is(changes.statusCode, 200, changes.raw);
  const said = changes.body.data.map((c: { change: string; name: string; old_version: string | null; new_version: string | null }) => `${c.change} ${c.name} ${c.old_version ?? '-'} ${c.new_version ?? '-'}`).sort();
  t.deepEqual(said, ['added @hapi/boom - 10.0.1', 'added @hapi/hoek - 11.0.7', 'removed commander 14.0.3 -', 'upgraded debug 4.3.4 4.4.3', 'upgraded ms 2.1.2 2.1.3']);
  const all = await app.request('GET', `/api/assets/${asset}/component-changes?per_page=100`, { token });
  t.is(all.body.meta.total, 4 + 5);
  const sboms = await app.request('GET', `/api/assets/${asset}/sboms`, { token });
  t.deepEqual(sboms.body.data.map((s: { status: string; subject: { version: string } }) => `${s.status} ${s.subject.version}`), ['current 2.0.0', 'superseded 1.0.0']);

  // Back to v1: a downgrade, and the same application's own generator output as before.
  const back = await upload(token, asset!, docs.v1cdx!);
  t.deepEqual(back.body.data.changes, { added: 1, removed: 2, upgraded: 0, downgraded: 2, changed: 0 });
});

test('cyclonedx-npm output in CycloneDX 1.4 and 1.6 is read too', async (t) => {
  const { token, assets: [a, b] } = await tenantWithAssets('c14', 'c16');
  for (const [asset, doc, version] of [[a!, docs.v2cdx14!, '1.4'], [b!, docs.v2cdx16!, '1.6']] as const) {
    const res = await upload(token, asset, doc);
    t.is(res.statusCode, 200, res.raw);
    t.like(res.body.data.sbom, { format: 'cyclonedx', spec_version: version, component_count: 5 });
    t.regex(res.body.data.sbom.tool, /cyclonedx-npm/);
    const rows = await inventory(token, asset);
    t.deepEqual(rows.map((r) => `${r.name}@${r.version}`), ['boom@10.0.1', 'debug@4.4.3', 'hoek@11.0.7', 'ms@2.1.3', 'semver@7.8.6']);
    t.like(rows[0], { package: 'pkg:npm/%40hapi/boom', direct: true });
    const debug = await app.request('GET', `/api/components/${rows[1]!.id}`, { token });
    t.deepEqual(debug.body.data.depends_on.map((c: { name: string }) => c.name), ['ms']);
  }
});

test('where do we run this package: every asset carrying it, with versions, by package URL or name', async (t) => {
  const { token, assets: [old, current, other] } = await tenantWithAssets('old', 'new', 'none');
  await upload(token, old!, docs.v1cdx!);
  await upload(token, current!, docs.v2spdx!);
  const other2 = await app.tenant();
  const foreign = (await app.request('POST', '/api/assets', { token: other2.token, payload: { name: 'elsewhere.example', type: 'domain' } })).body.data.id;
  await upload(other2.token, foreign, docs.v1cdx!);
  t.truthy(other);

  const all = await app.request('GET', `/api/components?purl=${encodeURIComponent('pkg:npm/debug')}`, { token });
  t.is(all.statusCode, 200, all.raw);
  t.deepEqual(all.body.data.map((r: { asset_id: string; version: string }) => [r.asset_id, r.version]).sort(), [[old, '4.3.4'], [current, '4.4.3']].sort());
  t.truthy(all.body.data[0].asset_name);
  const one = await app.request('GET', `/api/components?purl=${encodeURIComponent('pkg:npm/debug@4.4.3')}`, { token });
  t.deepEqual(one.body.data.map((r: { asset_id: string }) => r.asset_id), [current]);
  const scoped = await app.request('GET', `/api/components?purl=${encodeURIComponent('pkg:npm/@hapi/boom?foo=bar')}`, { token });
  t.deepEqual(scoped.body.data.map((r: { asset_id: string }) => r.asset_id), [current]);
  const byName = await app.request('GET', '/api/components?name=COMMANDER', { token });
  t.deepEqual(byName.body.data.map((r: { asset_id: string }) => r.asset_id), [old]);
  const none = await app.request('GET', `/api/components?purl=${encodeURIComponent('pkg:npm/left-pad')}`, { token });
  t.is(none.body.meta.total, 0);
  // No package named: every component of the tenant's inventories (4 + 5), never another tenant's.
  const everything = await app.request('GET', '/api/components?per_page=100', { token });
  t.is(everything.body.meta.total, 9);
  t.deepEqual(everything.body.data.filter((r: { asset_id: string }) => r.asset_id === foreign), []);
  const search = await app.request('GET', '/api/components?search=HAPI', { token });
  t.deepEqual(search.body.data.map((r: { name: string }) => r.name).sort(), ['@hapi/boom', '@hapi/hoek']);
  const bad = await app.request('GET', '/api/components?purl=npm%2Fdebug', { token });
  t.is(bad.statusCode, 400);
  t.regex(bad.body.error.message, /pkg:/);
});

test('findings naming a CVE link to the component their evidence names; kev and epss are null while no feed is loaded (component-enrichment.test.ts loads them)', async (t) => {
  const { token, tenantId, assets: [asset, elsewhere] } = await tenantWithAssets('linked', 'elsewhere');
  await upload(token, asset!, docs.v2spdx!);
  await upload(token, elsewhere!, docs.v1cdx!);
  const vector = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N';
  const make = (assetId: string, title: string, evidence: Record<string, unknown>, tags: string[] = []) =>
    app.ctx.services.findings.create(tenantId, 'test', [{ asset_id: assetId, title, cvss_vector: vector, evidence, tags }], false);
  const [byPurl] = await make(asset!, 'debug ReDoS', { purl: 'pkg:npm/debug@4.4.3', cve_ids: ['CVE-2017-16137'] });
  const [byPackage] = await make(asset!, 'CVE-2022-0001 in ms', { package: 'ms', installed_version: '2.1.3' });
  const [anyVersion] = await make(asset!, 'debug advisory', { package_url: 'pkg:npm/debug' }, ['CVE-2099-0002']);
  await make(asset!, 'debug, older version', { purl: 'pkg:npm/debug@4.3.4', cve_ids: ['CVE-2017-16137'] });
  await make(asset!, 'no CVE named', { purl: 'pkg:npm/debug@4.4.3' });
  await make(asset!, 'CVE-2099-0003 without package evidence', { url: 'https://x.example/' });
  await make(elsewhere!, 'debug on the other asset (4.3.4 there)', { purl: 'pkg:npm/debug@4.3.4', cve_ids: ['CVE-2017-16137'] });

  const rows = await inventory(token, asset!);
  const debug = rows.find((r) => r.name === 'debug')!;
  const detail = await app.request('GET', `/api/components/${debug.id}`, { token });
  t.is(detail.statusCode, 200, detail.raw);
  t.deepEqual(detail.body.data.findings.map((f: { id: string }) => f.id).sort(), [byPurl!.id, anyVersion!.id].sort());
  t.like(detail.body.data.findings.find((f: { id: string }) => f.id === byPurl!.id), { cve_ids: ['CVE-2017-16137'], kev: null, epss: null, severity: 'high' });
  t.is(detail.body.data.finding_count, 2);
  const ms = await app.request('GET', `/api/components/${rows.find((r) => r.name === 'ms')!.id}`, { token });
  t.deepEqual(ms.body.data.findings.map((f: { id: string; cve_ids: string[] }) => [f.id, f.cve_ids]), [[byPackage!.id, ['CVE-2022-0001']]]);
  const where = await app.request('GET', `/api/components?purl=${encodeURIComponent('pkg:npm/debug')}`, { token });
  t.deepEqual(where.body.data.map((r: { asset_id: string; finding_count: number }) => [r.asset_id, r.finding_count]).sort(), [[asset, 2], [elsewhere, 1]].sort());
  // The component page needs findings:read as well as assets:read.
  const assetsOnly = await app.ctx.services.admin.createToken(tenantId, { name: 'assets only', scopes: ['assets:read'], expiresAt: null });
  t.is((await app.request('GET', `/api/components/${debug.id}`, { token: assetsOnly.token })).statusCode, 403);
  t.is((await app.request('GET', `/api/assets/${asset}/components`, { token: assetsOnly.token })).statusCode, 200);
  t.is((await upload(assetsOnly.token, asset!, docs.v1cdx!)).statusCode, 403);
});
