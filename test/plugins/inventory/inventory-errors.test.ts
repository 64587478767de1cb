import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { rampartSbom, writeProject, type SmallProject } from '../../_helpers/inventory/sbom-generators.ts';

let app: TestApp;
let project: SmallProject;
let cdx: string;
let spdx: string;

test.before(async () => {
  app = await createTestApp({ imports: { maxBytes: 400_000, maxResults: 50 } });
  project = await writeProject('errors-app', '1.0.0', [{ name: 'debug' }, { name: 'ms' }, { name: 'semver' }], ['debug', 'semver']);
  cdx = await project.npmSbom('cyclonedx');
  spdx = await project.npmSbom('spdx');
});
test.after.always(async () => {
  await project?.remove();
  await app?.close();
});

/** Everything an upload writes: a refused one must leave all of it as it was. */
async function footprint(assetId: string) {
  const out: Record<string, number> = {};
  for (const table of ['sboms', 'sbom_components', 'sbom_dependencies', 'sbom_changes', 'asset_inventories']) {
    out[table] = Number(((await app.ctx.db(table).where({ asset_id: assetId }).count({ n: '*' }).first()) as { n: number }).n);
  }
  return out;
}

const upload = (token: string, assetId: string, body: string) => app.request('POST', `/api/assets/${assetId}/sbom`, { token, payload: body, headers: { 'content-type': 'application/json' } });

test('a malformed, truncated or unsupported document is a 400 naming where it broke, and nothing changes', async (t) => {
  const tenant = await app.tenant();
  const asset = (await app.request('POST', '/api/assets', { token: tenant.token, payload: { name: 'errors.example', type: 'domain' } })).body.data.id as string;
  t.is((await upload(tenant.token, asset, spdx)).statusCode, 200);
  const before = await footprint(asset);
  const c = JSON.parse(cdx);
  const s = JSON.parse(spdx);
  const cut = cdx.indexOf('"dependencies"');
  const cutLines = cdx.slice(0, cut).split('\n');
  const cases: Array<[string, string, string | RegExp, RegExp]> = [
    ['truncated in the middle', cdx.slice(0, cut), `line ${cutLines.length}, column ${cutLines.at(-1)!.length + 1}`, /not valid JSON/],
    ['cut at the end', cdx.slice(0, cdx.lastIndexOf('}')), /^line \d+, column \d+$/, /not valid JSON/],
    ['empty', '', 'line 1', /empty/],
    ['a component without a name', JSON.stringify({ ...c, components: [c.components[0], { ...c.components[1], name: undefined }] }), '$.components[1].name', /required/],
    ['a malformed package URL', JSON.stringify({ ...c, components: [c.components[0], { ...c.components[1], purl: 'npm/debug@4' }] }), '$.components[1].purl', /not a package URL.*pkg:/],
    ['an edge to a component not in the document', JSON.stringify({ ...c, dependencies: [...c.dependencies, { ref: c.components[0]['bom-ref'], dependsOn: ['left-pad@1.3.0'] }] }), `$.dependencies[${c.dependencies.length}].dependsOn[0]`, /"left-pad@1\.3\.0", which no component/],
    ['a licence entry of neither kind', JSON.stringify({ ...c, components: [{ ...c.components[0], licenses: [{ url: 'x' }] }] }), '$.components[0].licenses[0]', /license or an expression/],
    ['CycloneDX 1.2', JSON.stringify({ ...c, specVersion: '1.2' }), '$.specVersion', /CycloneDX 1\.2 is not supported/],
    ['SPDX 2.2', JSON.stringify({ ...s, spdxVersion: 'SPDX-2.2' }), '$.spdxVersion', /SPDX-2\.2 is not supported/],
    ['an SPDX package without an SPDXID', JSON.stringify({ ...s, packages: [s.packages[0], { ...s.packages[1], SPDXID: undefined }] }), '$.packages[1].SPDXID', /required/],
    ['an SPDX relationship to an unknown package', JSON.stringify({ ...s, relationships: [...s.relationships, { spdxElementId: 'SPDXRef-Package-nope', relatedSpdxElement: s.packages[0].SPDXID, relationshipType: 'DEPENDENCY_OF' }] }), `$.relationships[${s.relationships.length}]`, /SPDXRef-Package-nope/],
    ['neither format', JSON.stringify({ version: '2.1.0', runs: [] }), '$', /neither a CycloneDX document .* nor an SPDX document/],
    ['not an object', '[1, 2]', '$', /JSON object/],
  ];
  for (const [label, body, where, message] of cases) {
    const res = await upload(tenant.token, asset, body);
    t.is(res.statusCode, 400, `${label}: ${res.raw}`);
    t.is(res.body.error.code, 'invalid_sbom', label);
    if (typeof where === 'string') t.is(res.body.error.details[0].field, where, label);
    else t.regex(res.body.error.details[0].field, where, label);
    t.regex(res.body.error.message, message, label);
    t.regex(res.body.error.message, /Nothing was recorded\.$/, label);
  }
  t.deepEqual(await footprint(asset), before);
});

test('the import limits hold: too many bytes or components is a 413 and nothing changes; an unknown or foreign asset is a 404', async (t) => {
  const tenant = await app.tenant();
  const asset = (await app.request('POST', '/api/assets', { token: tenant.token, payload: { name: 'limits.example', type: 'domain' } })).body.data.id as string;
  const c = JSON.parse(cdx);
  const many = JSON.stringify({ ...c, dependencies: [], components: Array.from({ length: 51 }, (_, i) => ({ ...c.components[0], 'bom-ref': `x${i}`, name: `pkg-${i}` })) });
  const res = await upload(tenant.token, asset, many);
  t.is(res.statusCode, 413, res.raw);
  t.is(res.body.error.max_components, 50);
  const big = await upload(tenant.token, asset, JSON.stringify({ ...c, padding: 'x'.repeat(400_001) }));
  t.is(big.statusCode, 413);
  t.deepEqual(await footprint(asset), { sboms: 0, sbom_components: 0, sbom_dependencies: 0, sbom_changes: 0, asset_inventories: 0 });
  const other = await app.tenant();
  t.is((await upload(other.token, asset, cdx)).statusCode, 404);
  t.is((await upload(tenant.token, 'ast_00000000000000000000000000', cdx)).statusCode, 404);
});

test('the largest real SBOM at hand (npm sbom over Rampart itself) is recorded, and the time is logged', async (t) => {
  const big = await createTestApp();
  try {
    const tenant = await big.tenant();
    const asset = (await big.request('POST', '/api/assets', { token: tenant.token, payload: { name: 'rampart.example', type: 'domain' } })).body.data.id as string;
    for (const format of ['cyclonedx', 'spdx'] as const) {
      const doc = await rampartSbom(format);
      const started = process.hrtime.bigint();
      const res = await big.request('POST', `/api/assets/${asset}/sbom`, { token: tenant.token, payload: doc, headers: { 'content-type': 'application/json' } });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      t.is(res.statusCode, 200, res.raw.slice(0, 500));
      const expected = format === 'cyclonedx' ? JSON.parse(doc).components.length : JSON.parse(doc).packages.length - 1;
      t.is(res.body.data.sbom.component_count, expected);
      t.true(res.body.data.sbom.dependency_count > 100);
      t.log(`${format}: ${(doc.length / 1e6).toFixed(1)} MB, ${expected} components, ${res.body.data.sbom.dependency_count} edges, ${ms.toFixed(0)} ms (${process.env.DATABASE_URL?.startsWith('mysql') ? 'MariaDB' : 'SQLite'})`);
    }
    const where = await big.request('GET', `/api/components?purl=${encodeURIComponent('pkg:npm/joi')}`, { token: tenant.token });
    t.is(where.body.meta.total, 1);
  } finally {
    await big.close();
  }
});
