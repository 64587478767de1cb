import test from 'ava';
import { createTestApp, type TestApp } from '../_helpers/harness/test-app.ts';
import { rampart } from './_cli.ts';

let app: TestApp;
test.before(async () => {
  app = await createTestApp();
});
test.after.always(async () => {
  await app?.close();
});

test('rampart admin findings recount reports counters that differ from the rows, exits 1, and --repair puts them right', async (t) => {
  const { tenantId, token } = await app.tenant();
  const asset = (await app.request('POST', '/api/assets', { token, payload: { name: 'recount.example', type: 'domain' } })).body.data.id;
  await app.request('POST', '/api/findings', { token, payload: { asset_id: asset, title: 'counted', cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' } });
  const env = { DATABASE_URL: app.database.url };

  const clean = await rampart(['--json', 'admin', 'findings', 'recount', '--tenant', tenantId], env);
  t.is(clean.code, 0, clean.stderr);
  t.like(JSON.parse(clean.stdout), { checked: 1, inconsistent: 0, tenants: [] });

  // A write past the service: the counters still say open.
  await app.ctx.db('findings').where({ tenant_id: tenantId }).update({ status: 'resolved' });
  const found = await rampart(['admin', 'findings', 'recount'], env);
  t.is(found.code, 1, found.stderr);
  t.regex(found.stdout, new RegExp(`${tenantId}\\s+grid severity_rank=3 status=open\\s+1\\s+0\\s+false`));
  t.regex(found.stderr, /1 with differences; search index: consistent/);

  const repaired = await rampart(['--json', 'admin', 'findings', 'recount', '--repair', '--tenant', tenantId], env);
  t.is(repaired.code, 0, repaired.stderr);
  t.like(JSON.parse(repaired.stdout), { inconsistent: 1, tenants: [{ tenantId, repaired: true }] });
  t.like((await app.request('GET', '/api/findings/stats', { token })).body.data, { total: 1, by_status: { open: 0, resolved: 1 } });
  t.is((await rampart(['admin', 'findings', 'recount', '--tenant', tenantId], env)).code, 0);
});
