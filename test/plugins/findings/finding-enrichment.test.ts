import { readFileSync } from 'node:fs';
import test from 'ava';
import { FeedStore } from '../../../core/feeds/feed-store.ts';
import type { FeedKind } from '../../../core/feeds/feed-types.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

// KEV/EPSS on findings (docs/feeds.md, "On findings"): the real-format sample feeds are
// loaded through the feed store, findings come in through a nuclei import. Feeds are
// global, so the tests run one after the other.
const FEEDS = new URL('../../fixtures/feeds/', import.meta.url);
const feedFile = (name: string) => readFileSync(new URL(name, FEEDS));
/** A sample feed as the store reads any source: a stream of chunks. */
async function* feedBytes(name: string): AsyncGenerator<Buffer> {
  yield feedFile(name);
}
// A real nuclei v2 result, its CVE ids and names swapped for those the tests need.
const REAL = JSON.parse(readFileSync(new URL('../../fixtures/imports/nuclei-v2-cve.jsonl', import.meta.url), 'utf8').split('\n')[0]!) as Record<string, any>;

let app: TestApp;
test.before(async () => {
  app = await createTestApp();
});
test.after.always(async () => {
  await app?.close();
});

async function load(feed: FeedKind, name: string): Promise<void> {
  await app.ctx.services.feeds.store.load(feed, { kind: 'file', location: name }, feedBytes(name));
}

function line(template: string, cves: string[]): string {
  const classification = { ...REAL.info.classification, 'cve-id': cves.length ? cves : null };
  if (!cves.length) delete classification['cve-id'];
  return `${JSON.stringify({ ...REAL, 'template-id': template, template: `custom/${template}.yaml`, info: { ...REAL.info, name: `${template} enrichtest`, classification } })}\n`;
}

async function tenantWith(lines: string[]) {
  const tenant = await app.tenant();
  const asset = await app.request('POST', '/api/assets', { token: tenant.token, payload: { name: `enrich-${Math.random().toString(36).slice(2)}.example`, type: 'domain' } });
  const imported = await app.request('POST', `/api/findings/import?format=nuclei&asset_id=${asset.body.data.id}`, { token: tenant.token, payload: lines.join(''), headers: { 'content-type': 'application/x-ndjson' } });
  if (imported.statusCode !== 200) throw new Error(imported.raw);
  const list = (await app.request('GET', '/api/findings?per_page=100', { token: tenant.token })).body.data as Array<{ id: string; title: string }>;
  const id = (template: string) => list.find((f) => f.title.startsWith(`${template} `))!.id;
  return { token: tenant.token, id };
}

let a: Awaited<ReturnType<typeof tenantWith>>;
let b: Awaited<ReturnType<typeof tenantWith>>;
const get = (token: string, query: string) => app.request('GET', `/api/findings?${query}`, { token });
const ids = async (token: string, query: string) => {
  const res = await get(token, query);
  return { ids: (res.body.data as Array<{ id: string }>).map((f) => f.id), total: res.body.meta.total as number };
};

test.serial('before any feed load, findings carry kev and epss null', async (t) => {
  a = await tenantWith([
    line('one-kev', ['CVE-2026-35273', 'CVE-1999-0003']),
    line('two-kev', ['CVE-2026-20262', 'CVE-2022-0492']),
    line('two-epss', ['CVE-1999-0001', 'CVE-1999-0002']),
    line('no-cve', []),
  ]);
  b = await tenantWith([line('other-tenant', ['CVE-2026-35273', 'CVE-1999-0002'])]);
  const list = (await get(a.token, 'per_page=100')).body.data as Array<{ kev: unknown; epss: unknown }>;
  t.is(list.length, 4);
  for (const f of list) t.like(f, { kev: null, epss: null });
  t.like((await app.request('GET', `/api/findings/${a.id('one-kev')}`, { token: a.token })).body.data, { kev: null, epss: null });
  t.deepEqual(await ids(a.token, 'kev=true'), { ids: [], total: 0 });
});

test.serial('after the sample feeds load: kev and epss on the detail and the list, several CVEs folded', async (t) => {
  await load('kev', 'kev-2026.06.15-head.json');
  await load('epss', 'epss-2025-01-01-head.csv');
  const detail = (await app.request('GET', `/api/findings/${a.id('one-kev')}`, { token: a.token })).body.data;
  t.deepEqual(detail.kev, { cve: 'CVE-2026-35273', in_catalog: true, date_added: '2026-06-12', due_date: '2026-06-15', known_ransomware: true, vendor_project: 'Oracle', product: 'PeopleSoft Enterprise PeopleTools' });
  t.deepEqual(detail.epss, { cve: 'CVE-1999-0003', score: 0.04409, percentile: 0.92305, feed_date: '2025-01-01T00:00:00.000Z' });
  const list = new Map(((await get(a.token, 'per_page=100')).body.data as Array<{ id: string; kev: any; epss: any }>).map((f) => [f.id, f]));
  t.deepEqual(list.get(a.id('one-kev'))!.kev, detail.kev);
  // Two CVEs in the catalog: the earliest due date (CVE-2022-0492, due 2026-06-05) speaks for the finding.
  t.like(list.get(a.id('two-kev'))!, { kev: { cve: 'CVE-2022-0492', due_date: '2026-06-05', known_ransomware: false, vendor_project: 'Linux', product: 'Kernel' }, epss: null });
  // Two scored CVEs: the highest score.
  t.like(list.get(a.id('two-epss'))!, { kev: null, epss: { cve: 'CVE-1999-0002', score: 0.01328, percentile: 0.85717 } });
  t.like(list.get(a.id('no-cve'))!, { kev: null, epss: null });
});

test.serial('kev and epss_min filter, sort_by=epss sorts, totals and pages agree, tenants stay apart', async (t) => {
  t.deepEqual(await ids(a.token, 'kev=true&sort_by=title&sort_order=asc'), { ids: [a.id('one-kev'), a.id('two-kev')], total: 2 });
  t.deepEqual(await ids(a.token, 'kev=false&sort_by=title&sort_order=asc'), { ids: [a.id('no-cve'), a.id('two-epss')], total: 2 });
  t.deepEqual(await ids(a.token, 'epss_min=0.02'), { ids: [a.id('one-kev')], total: 1 });
  t.deepEqual(await ids(a.token, 'epss_min=0&sort_by=epss'), { ids: [a.id('one-kev'), a.id('two-epss')], total: 2 });
  t.deepEqual(await ids(a.token, 'epss_min=0.01&kev=false'), { ids: [a.id('two-epss')], total: 1 });
  t.deepEqual(await ids(a.token, 'epss_min=0.5'), { ids: [], total: 0 });

  // Descending by default; findings without a score rank below every score (ties by id).
  const [noScore1, noScore2] = [a.id('two-kev'), a.id('no-cve')].sort().reverse();
  const desc = [a.id('one-kev'), a.id('two-epss'), noScore1!, noScore2!];
  t.deepEqual(await ids(a.token, 'sort_by=epss'), { ids: desc, total: 4 });
  t.deepEqual(await ids(a.token, 'sort_by=epss&sort_order=asc'), { ids: [...desc].reverse(), total: 4 });
  t.deepEqual(await ids(a.token, 'sort_by=epss&per_page=1&page=2'), { ids: [a.id('two-epss')], total: 4 });
  t.deepEqual(await ids(a.token, 'sort_by=epss&search=enrichtest&per_page=2'), { ids: desc.slice(0, 2), total: 4 });
  t.deepEqual(await ids(a.token, 'sort_by=epss&severity=medium,high,critical,low,info&status=open'), { ids: desc, total: 4 });

  // The other tenant shares the CVEs, never the findings.
  t.deepEqual(await ids(b.token, 'kev=true'), { ids: [b.id('other-tenant')], total: 1 });
  t.deepEqual(await ids(b.token, 'sort_by=epss&epss_min=0.01'), { ids: [b.id('other-tenant')], total: 1 });
  t.is((await ids(a.token, 'per_page=100')).ids.includes(b.id('other-tenant')), false);

  // An export takes the list's filters and sort, so it holds what the list shows.
  const exported = await app.request('POST', '/api/findings/export', { token: a.token, payload: { format: 'json', filters: { kev: false, sort_by: 'epss' } } });
  t.is(exported.statusCode, 200, exported.raw.slice(0, 300));
  t.deepEqual((exported.body as Array<{ id: string }>).map((f) => f.id), [a.id('two-epss'), a.id('no-cve')]);
});

test.serial('bad kev, epss_min and sort_by values are a 400 in the one error shape', async (t) => {
  for (const query of ['kev=maybe', 'kev=', 'epss_min=1.5', 'epss_min=-0.1', 'epss_min=high', 'sort_by=epss_score', 'sort_by=epss&sort_order=up']) {
    const res = await get(a.token, query);
    t.is(res.statusCode, 400, query);
    t.is(res.body.error.code, 'validation_failed', query);
    t.truthy(res.body.error.message, query);
  }
});

test.serial('a second EPSS load shows its scores at once; a CVE it dropped leaves the finding unscored', async (t) => {
  await load('epss', 'epss-2026-07-28-head.csv');
  const detail = (await app.request('GET', `/api/findings/${a.id('two-epss')}`, { token: a.token })).body.data;
  t.deepEqual(detail.epss, { cve: 'CVE-1999-0002', score: 0.27858, percentile: 0.97896, feed_date: '2026-07-28T12:00:27.000Z' });
  // CVE-1999-0003 is not in the new file: the finding naming it has no score now; its KEV entry stays.
  t.like((await app.request('GET', `/api/findings/${a.id('one-kev')}`, { token: a.token })).body.data, { epss: null, kev: { cve: 'CVE-2026-35273' } });
  t.deepEqual(await ids(a.token, 'epss_min=0.2'), { ids: [a.id('two-epss')], total: 1 });
  t.is((await ids(a.token, 'sort_by=epss')).ids[0], a.id('two-epss'));
});

test.serial('a feed load ends a conditional GET\'s 304 on the finding detail: its enrichment changed', async (t) => {
  const id = a.id('two-epss');
  // A finding and feed loads of a minute ago, so a client's copy of 30 s ago is current.
  await app.ctx.db('findings').where({ id }).update({ updated_at: Date.now() - 120_000 });
  const past = new FeedStore(app.ctx.db, { maxBytes: 8 * 1024 * 1024, keepChangeSets: 2, clock: () => Date.now() - 60_000 });
  await past.load('kev', { kind: 'file', location: 'old' }, feedBytes('kev-2026.06.15-head.json'));
  await past.load('epss', { kind: 'file', location: 'old' }, feedBytes('epss-2025-01-01-head.csv'));
  const since = new Date(Date.now() - 30_000).toUTCString();
  t.is((await app.request('GET', `/api/findings/${id}`, { token: a.token, headers: { 'if-modified-since': since } })).statusCode, 304);
  await load('epss', 'epss-2026-07-28-head.csv');
  const res = await app.request('GET', `/api/findings/${id}`, { token: a.token, headers: { 'if-modified-since': since } });
  t.is(res.statusCode, 200);
  t.is(res.body.data.epss.score, 0.27858);
});
