import test from 'ava';
import { recountFindings } from '../../../core/findings/finding-recount.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

// Manual merge and split through the API (docs/finding-fingerprints.md#merge-and-split).
let app: TestApp;
test.before(async () => {
  app = await createTestApp();
});
test.after.always(async () => {
  await app?.close();
});

const VECTOR = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N';
const line = (template: string, path: string) => `${JSON.stringify({
  'template-id': template, info: { name: `${template} found`, severity: 'high', classification: { 'cvss-metrics': VECTOR } },
  type: 'http', host: 'https://merge.example', 'matched-at': `https://merge.example${path}`, timestamp: '2026-12-01T10:00:00.000Z',
})}\n`;
const FILE = line('git-config', '/.git/config') + line('git-head', '/.git/HEAD');

async function setUp() {
  const tenant = await app.tenant();
  const asset = async (name: string) => (await app.request('POST', '/api/assets', { token: tenant.token, payload: { name, type: 'domain' } })).body.data.id as string;
  const assetId = await asset(`m-${Math.random().toString(36).slice(2)}.example`);
  const otherAsset = await asset(`o-${Math.random().toString(36).slice(2)}.example`);
  const imported = await app.request('POST', `/api/findings/import?format=nuclei&asset_id=${assetId}`, { token: tenant.token, payload: FILE, headers: { 'content-type': 'application/x-ndjson' } });
  if (imported.body.data.created !== 2) throw new Error(imported.raw);
  const list = (await app.request('GET', `/api/findings?asset_id=${assetId}&sort_by=title&sort_order=asc`, { token: tenant.token })).body.data;
  return { ...tenant, assetId, otherAsset, keep: list[0].id as string, fold: list[1].id as string };
}

const detail = async (token: string, id: string) => (await app.request('GET', `/api/findings/${id}`, { token })).body.data;
const consistent = async (tenantId: string) => (await recountFindings(app.ctx.db, { tenantId, repair: false })).inconsistent === 0;

test('a merge folds a finding of the same asset into another, keeping its sources, notes and history; a split restores it as it was', async (t) => {
  const s = await setUp();
  await app.request('PUT', `/api/findings/${s.fold}/status`, { token: s.token, payload: { status: 'resolved', note: 'fixed in the web root' } });
  const folded = await detail(s.token, s.fold);
  const events = async () => Number((await app.ctx.db('events').where({ tenant_id: s.tenantId, kind: 'finding.status_changed' }).count({ n: '*' }).first())!.n);
  const eventsBefore = await events();

  const merged = await app.request('POST', `/api/findings/${s.keep}/merge`, { token: s.token, payload: { finding_ids: [s.fold] } });
  t.is(merged.statusCode, 200, merged.raw);
  t.deepEqual(merged.body.data, { id: s.keep, merged_ids: [s.fold] });
  t.is((await app.request('GET', `/api/findings/${s.fold}`, { token: s.token })).statusCode, 404);
  t.is((await app.request('GET', `/api/findings?asset_id=${s.assetId}`, { token: s.token })).body.meta.total, 1);
  const kept = await detail(s.token, s.keep);
  t.deepEqual(kept.sources.map((x: { rule_id: string }) => x.rule_id).sort(), ['nuclei:git-config', 'nuclei:git-head']);
  t.true(kept.notes.some((n: { text: string }) => n.text === 'fixed in the web root'));
  t.true(kept.notes.some((n: { text: string }) => n.text === `Merged ${s.fold} into this finding.`));
  t.is(kept.status_history.length, 3, 'its own creation, and the folded finding\'s creation and resolution');
  t.is(kept.status, 'open');
  t.like(kept.dedup.merges[0], { finding_id: s.fold, split_at: null });
  t.is(await events(), eventsBefore, 'no status changed');
  t.true(await consistent(s.tenantId), 'counters equal a recount');
  const stats = (await app.request('GET', '/api/findings/stats', { token: s.token })).body.data;
  t.is(stats.total, 1);

  // Importing the same file again adds nothing: the folded finding's source now answers for it.
  const again = await app.request('POST', `/api/findings/import?format=nuclei&asset_id=${s.assetId}`, { token: s.token, payload: FILE, headers: { 'content-type': 'application/x-ndjson' } });
  t.like(again.body.data, { created: 0, seen_again: 2 });

  const split = await app.request('POST', `/api/findings/${s.keep}/split`, { token: s.token, payload: {} });
  t.is(split.statusCode, 200, split.raw);
  t.deepEqual(split.body.data, { id: s.keep, restored_ids: [s.fold] });
  const back = await detail(s.token, s.fold);
  t.like(back, { id: s.fold, title: folded.title, status: 'resolved', discovered_at: folded.discovered_at });
  t.deepEqual(back.notes, folded.notes);
  t.deepEqual(back.status_history, folded.status_history);
  t.deepEqual(back.sources.map((x: { rule_id: string }) => x.rule_id), ['nuclei:git-head']);
  t.deepEqual(back.dedup.keys, folded.dedup.keys);
  const keptAfter = await detail(s.token, s.keep);
  t.deepEqual(keptAfter.sources.map((x: { rule_id: string }) => x.rule_id), ['nuclei:git-config']);
  t.is(keptAfter.dedup.keys.length, 1, 'the keys it gained went back');
  t.regex(keptAfter.dedup.keys[0].value, /^nuclei:git-config /);
  t.truthy(keptAfter.dedup.merges[0].split_at);
  t.true(keptAfter.notes.some((n: { text: string }) => n.text === `Split ${s.fold} back out of this finding.`));
  t.true(await consistent(s.tenantId));
  t.is((await app.request('GET', `/api/findings?asset_id=${s.assetId}`, { token: s.token })).body.meta.total, 2);
});

test('bad merges and splits are 4xx in the one error shape and change nothing', async (t) => {
  const s = await setUp();
  const other = await app.tenant();
  const theirAsset = (await app.request('POST', '/api/assets', { token: other.token, payload: { name: 'theirs.example', type: 'domain' } })).body.data.id;
  const theirs = (await app.request('POST', '/api/findings', { token: other.token, payload: { asset_id: theirAsset, title: 'theirs', cvss_vector: VECTOR } })).body.data.id;
  const elsewhere = (await app.request('POST', '/api/findings', { token: s.token, payload: { asset_id: s.otherAsset, title: 'elsewhere', cvss_vector: VECTOR } })).body.data.id;
  const snapshot = async () => JSON.stringify(await Promise.all([s.keep, s.fold, elsewhere].map((id) => detail(s.token, id))));
  const before = await snapshot();
  const post = (path: string, payload: unknown, token = s.token) => app.request('POST', path, { token, payload });
  const cases: Array<[string, Promise<{ statusCode: number; body: any }>, number, string]> = [
    ['across assets', post(`/api/findings/${s.keep}/merge`, { finding_ids: [s.fold, elsewhere] }), 409, 'merge_across_assets'],
    ['another tenant\'s finding', post(`/api/findings/${s.keep}/merge`, { finding_ids: [theirs] }), 404, 'not_found'],
    ['into another tenant\'s finding', post(`/api/findings/${theirs}/merge`, { finding_ids: [s.keep] }), 404, 'not_found'],
    ['into itself', post(`/api/findings/${s.keep}/merge`, { finding_ids: [s.keep] }), 400, 'validation_failed'],
    ['no ids', post(`/api/findings/${s.keep}/merge`, { finding_ids: [] }), 400, 'validation_failed'],
    ['split of a finding never merged', post(`/api/findings/${s.keep}/split`, {}), 409, 'not_merged'],
  ];
  for (const [name, res, status, code] of cases) {
    const r = await res;
    t.is(r.statusCode, status, name);
    t.like(r.body, { status: 'error', error: { code } }, name);
  }
  t.is(await snapshot(), before, 'nothing changed');
  t.true(await consistent(s.tenantId));
  // A split naming a finding that was not merged into this one.
  await post(`/api/findings/${s.keep}/merge`, { finding_ids: [s.fold] });
  const wrong = await post(`/api/findings/${s.keep}/split`, { finding_ids: [elsewhere] });
  t.is(wrong.statusCode, 409);
  t.is((await app.request('GET', `/api/findings/${s.fold}`, { token: s.token })).statusCode, 404, 'still merged');
});
