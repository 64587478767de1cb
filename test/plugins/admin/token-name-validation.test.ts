import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
let tenantId: string;
test.before(async () => {
  t0 = await createTestApp();
  tenantId = (await t0.request('POST', '/api/admin/tenants', { payload: { name: 'token-names', tier: 'standard' } })).body.data.id;
});
test.after.always(async () => t0?.close());

// Whole-table count, so the tests of this file run serially.
const tokenRows = async () => Number((await t0.ctx.db('api_tokens').count({ n: '*' }))[0]!.n);
const issue = (name: string) => t0.request('POST', `/api/admin/tenants/${tenantId}/tokens`, { payload: { name, scopes: ['assets:read'] } });

test.serial('a token name with a control character (NUL, CR, LF, tab, DEL, C1, line separators) is a 400 and issues nothing', async (t) => {
  for (const name of ['ci\u0000token', 'ci\r\nSet-Cookie: x=1', 'ci\ntoken', 'ci\rtoken', 'ci\ttoken', 'ci\u007ftoken', 'ci\u0085token', 'ci\u2028token', '\u0000']) {
    const before = await tokenRows();
    const res = await issue(name);
    t.is(res.statusCode, 400, JSON.stringify(name));
    t.is(res.body.error.code, 'validation_failed', JSON.stringify(name));
    t.is(res.body.error.details[0].field, 'name', JSON.stringify(name));
    t.is(await tokenRows(), before, JSON.stringify(name));
  }
});

test.serial('ordinary token names, unicode included, are still accepted', async (t) => {
  for (const name of ['ci token', 'déploiement — prod', 'スキャナー', '  padded  ']) {
    const res = await issue(name);
    t.is(res.statusCode, 201, res.raw);
    t.is(res.body.data.name, name.trim());
  }
});
