import test from 'ava';
import { changeClock } from '../../../core/db/change-clock.ts';
import { formatHttpDate } from '../../../core/http/last-modified.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(async () => t0?.close());

test('webhook list: Last-Modified is the webhooks change clock; 304 until it moves', async (t) => {
  const { tenantId, token } = await t0.tenant();
  const never = await t0.request('GET', '/api/webhooks', { token });
  t.is(never.statusCode, 200);
  t.is(never.headers['last-modified'], formatHttpDate(0), 'a list that never changed');
  // Changes of the last ~2 s are always answered 200 (core/http/last-modified.ts): age this one.
  const at = Math.floor(Date.now() / 1000) * 1000 - 10_000;
  await changeClock.markChanged(t0.ctx.db, tenantId, 'webhooks', at);
  const first = await t0.request('GET', '/api/webhooks', { token });
  t.is(first.headers['last-modified'], formatHttpDate(at / 1000));
  const ims = { 'if-modified-since': String(first.headers['last-modified']) };
  t.is((await t0.request('GET', '/api/webhooks', { token, headers: ims })).statusCode, 304);
  await changeClock.markChanged(t0.ctx.db, tenantId, 'webhooks', at + 3000);
  t.is((await t0.request('GET', '/api/webhooks', { token, headers: ims })).statusCode, 200);
  const other = await t0.tenant();
  t.is((await t0.request('GET', '/api/webhooks', { token: other.token, headers: ims })).statusCode, 304, 'another tenant\'s list never changed');
});
