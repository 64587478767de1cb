import test from 'ava';
import * as m030 from '../../../core/db/migrations/030-finding-sources.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

// Migration 030 on a database that already holds findings: each finding with a dedup key
// gets its rule key and one source, so later reports of its rule keep landing on it.
let app: TestApp;
test.before(async () => {
  app = await createTestApp();
});
test.after.always(async () => {
  await app?.close();
});

test('migration 030 gives findings already there their rule key and one source; a re-import then adds nothing', async (t) => {
  const { tenantId, token } = await app.tenant();
  const asset = (await app.request('POST', '/api/assets', { token, payload: { name: 'migrated.example', type: 'domain' } })).body.data.id;
  const file = `${JSON.stringify({ 'template-id': 'git-config', info: { name: 'Git config', severity: 'medium' }, type: 'http', host: 'https://migrated.example', 'matched-at': 'https://migrated.example/.git/config' })}\n`;
  const upload = () => app.request('POST', `/api/findings/import?format=nuclei&asset_id=${asset}`, { token, payload: file, headers: { 'content-type': 'application/x-ndjson' } });
  t.like((await upload()).body.data, { created: 1 });
  const finding = await app.ctx.db('findings').where({ tenant_id: tenantId }).first('id', 'dedup_key', 'created_at');

  // The database as it was before 030, with its findings, then 030 applied.
  await m030.down(app.ctx.db);
  await m030.up(app.ctx.db);
  t.deepEqual(await app.ctx.db('finding_keys').where({ tenant_id: tenantId }).select('finding_id', 'kind', 'key_hash', 'value'), [{ finding_id: finding.id, kind: 'rule', key_hash: finding.dedup_key, value: 'nuclei:git-config' }]);
  const sources = await app.ctx.db('finding_sources').where({ tenant_id: tenantId }).select('finding_id', 'rule_key', 'rule_id', 'first_origin', 'first_seen', 'matched_on');
  t.deepEqual(sources.map((s: Record<string, unknown>) => ({ ...s, first_seen: Number(s.first_seen) })), [{ finding_id: finding.id, rule_key: finding.dedup_key, rule_id: 'nuclei:git-config', first_origin: 'import', first_seen: Number(finding.created_at), matched_on: null }]);

  t.like((await upload()).body.data, { created: 0, seen_again: 1 });
  const detail = (await app.request('GET', `/api/findings/${finding.id}`, { token })).body.data;
  t.is(detail.sources.length, 1);
  t.regex(detail.sources[0].last_origin, /^import:\d{4}-/);
});
