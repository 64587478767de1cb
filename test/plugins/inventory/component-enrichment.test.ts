import test from 'ava';
import { readFileSync } from 'node:fs';
import type { FeedKind } from '../../../core/feeds/feed-types.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { writeProject, type SmallProject } from '../../_helpers/inventory/sbom-generators.ts';

// A component's findings carry KEV and EPSS from the feeds in force (docs/inventory.md):
// null before any load, then the catalog's answer and the highest score of their CVEs.
// Its own app: the feed loads here would change what inventory-routes.test.ts reads.
let app: TestApp;
let project: SmallProject;

test.before(async () => {
  app = await createTestApp();
  project = await writeProject('kev-app', '1.0.0', [{ name: 'debug' }, { name: 'ms' }], ['debug']);
});
test.after.always(async () => {
  await project?.remove();
  await app?.close();
});

async function* bytes(name: string): AsyncGenerator<Buffer> {
  yield readFileSync(new URL(`../../fixtures/feeds/${name}`, import.meta.url));
}
const load = (feed: FeedKind, name: string) => app.ctx.services.feeds.store.load(feed, { kind: 'file', location: name }, bytes(name));

test('linked findings show kev and epss once the feeds are loaded: null before, in catalog or not after', async (t) => {
  const tenant = await app.tenant();
  const asset = (await app.request('POST', '/api/assets', { token: tenant.token, payload: { name: `kev-${Math.random().toString(36).slice(2)}.example`, type: 'domain' } })).body.data.id as string;
  const sbom = await app.request('POST', `/api/assets/${asset}/sbom`, { token: tenant.token, payload: await project.npmSbom('cyclonedx'), headers: { 'content-type': 'application/json' } });
  t.is(sbom.statusCode, 200, sbom.raw);
  const vector = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N';
  const make = (title: string, cves: string[]) => app.ctx.services.findings.create(tenant.tenantId, 'test', [{ asset_id: asset, title, cvss_vector: vector, evidence: { package: 'debug', cve_ids: cves }, tags: [] }], false);
  // In the sample KEV catalog and scored in the sample EPSS file; scored only (two scores: the higher counts); neither.
  const [inKev] = await make('debug: KEV entry', ['CVE-2022-0492']);
  const [scored] = await make('debug: scored twice', ['CVE-1999-0001', 'CVE-1999-0002']);
  const [unknown] = await make('debug: unknown CVE', ['CVE-2099-12345']);
  const components = (await app.request('GET', `/api/assets/${asset}/components?per_page=100`, { token: tenant.token })).body.data as Array<{ id: string; name: string }>;
  const debug = components.find((c) => c.name === 'debug')!;
  const findings = async () => {
    const res = await app.request('GET', `/api/components/${debug.id}`, { token: tenant.token });
    t.is(res.statusCode, 200, res.raw);
    return new Map((res.body.data.findings as Array<{ id: string; kev: boolean | null; epss: number | null }>).map((f) => [f.id, { kev: f.kev, epss: f.epss }]));
  };

  const before = await findings();
  t.is(before.size, 3);
  for (const f of before.values()) t.deepEqual(f, { kev: null, epss: null });

  await load('kev', 'kev-2026.06.15-head.json');
  await load('epss', 'epss-2026-07-28-head.csv');
  const after = await findings();
  t.deepEqual(after.get(inKev!.id), { kev: true, epss: null });
  t.deepEqual(after.get(scored!.id), { kev: false, epss: 0.27858 });
  t.deepEqual(after.get(unknown!.id), { kev: false, epss: null });
});
