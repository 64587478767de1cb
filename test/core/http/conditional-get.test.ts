import test from 'ava';
import Joi from 'joi';
import { callerOf } from '../../../core/http/auth-scheme.ts';
import { collectionLastModified } from '../../../core/http/conditional-get.ts';
import { formatHttpDate } from '../../../core/http/last-modified.ts';
import { changeClock } from '../../../core/db/change-clock.ts';
import { tenantRepository } from '../../../core/auth/tenant-repository.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { DEFAULT_RATE_LIMITS } from '../../_helpers/harness/rate-limit-config.ts';

let t0: TestApp;
const clock = { now: Date.now() };
const TEN_SECONDS_AGO = () => Math.floor(Date.now() / 1000) * 1000 - 10_000;

test.before(async () => {
  const standard = { perMinute: 1, burst: 6, streams: 5 };
  t0 = await createTestApp(
    { rateLimit: { ...DEFAULT_RATE_LIMITS, tiers: { ...DEFAULT_RATE_LIMITS.tiers, standard } } },
    { rateLimitClock: () => clock.now },
  );
  // A tenant collection route as other areas declare it.
  t0.server.route({
    method: 'GET',
    path: '/test/things',
    options: {
      auth: { access: { scope: ['assets:read'] } },
      plugins: { rampart: { lastModified: collectionLastModified((tenantId) => changeClock.lastChanged(t0.ctx.db, tenantId, 'assets')) } },
      validate: { query: Joi.object({}) },
    },
    handler: (request) => ({ data: [], tenant: callerOf(request).tenantId }),
  });
});
test.after.always(async () => {
  await t0?.close();
});

/** An admin-scoped token in its own Standard tenant (6 tokens, 1/min: nothing refills). */
async function adminOfOwnBudget() {
  return (await t0.tenant({ tier: 'standard', scopes: ['admin', 'assets:read'] })).token;
}

async function oldTenant(token: string) {
  const created = await t0.request('POST', '/api/admin/tenants', { token, payload: { name: `cond-${Math.random()}` } });
  const id = created.body.data.id as string;
  const at = TEN_SECONDS_AGO();
  await tenantRepository.update(t0.ctx.db, id, {}, at);
  return { id, at };
}

test.serial('record GET: Last-Modified is updated_at; If-Modified-Since answers 304 without spending a token', async (t) => {
  const token = await adminOfOwnBudget();
  const { id, at } = await oldTenant(token);
  const first = await t0.request('GET', `/api/admin/tenants/${id}`, { token });
  t.is(first.statusCode, 200);
  t.is(first.headers['last-modified'], formatHttpDate(at / 1000));
  t.is(first.headers['x-ratelimit-remaining'], '4');
  for (let i = 0; i < 10; i++) {
    const cond = await t0.request('GET', `/api/admin/tenants/${id}`, { token, headers: { 'if-modified-since': String(first.headers['last-modified']) } });
    t.is(cond.statusCode, 304);
    t.is(cond.raw, '');
    t.is(cond.headers['last-modified'], first.headers['last-modified']);
    t.is(cond.headers['x-ratelimit-remaining'], '4', 'a 304 costs nothing');
  }
  const older = await t0.request('GET', `/api/admin/tenants/${id}`, { token, headers: { 'if-modified-since': formatHttpDate(at / 1000 - 1) } });
  t.is(older.statusCode, 200, 'a copy from before the change');
  t.is(older.headers['x-ratelimit-remaining'], '3');
});

test.serial('a 304 is answered even with an empty bucket; anything else then gets 429', async (t) => {
  const token = await adminOfOwnBudget();
  const { id } = await oldTenant(token);
  const first = await t0.request('GET', `/api/admin/tenants/${id}`, { token });
  const ims = { 'if-modified-since': String(first.headers['last-modified']) };
  while ((await t0.request('GET', '/api/user/me', { token })).statusCode === 200);
  const cond = await t0.request('GET', `/api/admin/tenants/${id}`, { token, headers: ims });
  t.is(cond.statusCode, 304);
  t.is(cond.headers['x-ratelimit-remaining'], '0');
  t.is((await t0.request('GET', `/api/admin/tenants/${id}`, { token })).statusCode, 429);
  await tenantRepository.update(t0.ctx.db, id, { name: `changed-${Math.random()}` }, TEN_SECONDS_AGO() + 5000);
  const changed = await t0.request('GET', `/api/admin/tenants/${id}`, { token, headers: ims });
  t.is(changed.statusCode, 429, 'changed data: a full answer, which needs a token');
  t.is(changed.body.error.code, 'rate_limited');
});

test.serial('a change later in the same second as a sent Last-Modified is never answered 304', async (t) => {
  const token = (await t0.tenant({ tier: 'enterprise', scopes: ['admin'] })).token;
  const created = await t0.request('POST', '/api/admin/tenants', { token, payload: { name: `fresh-${Math.random()}` } });
  const id = created.body.data.id;
  const got = await t0.request('GET', `/api/admin/tenants/${id}`, { token });
  const sent = Date.parse(String(got.headers['last-modified']));
  t.true(sent <= Date.now() - 2000, 'a fresh change is not claimed in its own second');
  const patched = await t0.request('PATCH', `/api/admin/tenants/${id}`, { token, payload: { tier: 'premium' } });
  t.is(patched.statusCode, 200);
  const again = await t0.request('GET', `/api/admin/tenants/${id}`, { token, headers: { 'if-modified-since': String(got.headers['last-modified']) } });
  t.is(again.statusCode, 200);
  t.is(again.body.data.tier, 'premium');
  // Made-up If-Modified-Since in the current second (never sent by us) is not trusted either.
  const madeUp = await t0.request('GET', `/api/admin/tenants/${id}`, { token, headers: { 'if-modified-since': new Date().toUTCString() } });
  t.is(madeUp.statusCode, 200);
});

test.serial('list GET: the tenants list revalidates on the latest tenant change', async (t) => {
  const token = await adminOfOwnBudget();
  const old = TEN_SECONDS_AGO();
  await t0.ctx.db('tenants').update({ updated_at: old });
  const list = await t0.request('GET', '/api/admin/tenants', { token });
  t.is(list.headers['last-modified'], formatHttpDate(old / 1000));
  const ims = { 'if-modified-since': String(list.headers['last-modified']) };
  t.is((await t0.request('GET', '/api/admin/tenants?page=2', { token, headers: ims })).statusCode, 304);
  await t0.tenant();
  t.is((await t0.request('GET', '/api/admin/tenants', { token, headers: ims })).statusCode, 200, 'a new tenant changes the list');
});

test.serial('collection lists: the change clock, including a collection that never changed', async (t) => {
  const token = await adminOfOwnBudget();
  const never = await t0.request('GET', '/test/things', { token });
  t.is(never.statusCode, 200);
  t.is(never.headers['last-modified'], 'Thu, 01 Jan 1970 00:00:00 GMT');
  t.is((await t0.request('GET', '/test/things', { token, headers: { 'if-modified-since': String(never.headers['last-modified']) } })).statusCode, 304);
  const me = await t0.request('GET', '/api/user/me', { token });
  const at = TEN_SECONDS_AGO();
  await changeClock.markChanged(t0.ctx.db, me.body.data.tenant.id, 'assets', at);
  const listed = await t0.request('GET', '/test/things', { token, headers: { 'if-modified-since': String(never.headers['last-modified']) } });
  t.is(listed.statusCode, 200);
  t.is(listed.headers['last-modified'], formatHttpDate(at / 1000));
  t.is((await t0.request('GET', '/test/things', { token, headers: { 'if-modified-since': String(listed.headers['last-modified']) } })).statusCode, 304);
  await changeClock.markChanged(t0.ctx.db, me.body.data.tenant.id, 'assets', at + 3000);
  t.is((await t0.request('GET', '/test/things', { token, headers: { 'if-modified-since': String(listed.headers['last-modified']) } })).statusCode, 200, 'a deletion or any write moves the clock');
});

test.serial('a conditional GET that fails validation is charged like any other request (no free 400s), and an empty bucket answers 429', async (t) => {
  const token = await adminOfOwnBudget();
  const ims = { 'if-modified-since': formatHttpDate(TEN_SECONDS_AGO() / 1000) };
  const bad = await t0.request('GET', '/test/things?unknown=1', { token, headers: ims });
  t.is(bad.statusCode, 400);
  t.is(bad.body.error.code, 'validation_failed');
  t.is(bad.headers['x-ratelimit-remaining'], '5', 'the 400 took a token');
  for (let left = 4; left >= 0; left--) {
    const res = await t0.request('GET', '/test/things?unknown=1', { token, headers: ims });
    t.is(res.statusCode, 400);
    t.is(res.headers['x-ratelimit-remaining'], String(left));
  }
  const refused = await t0.request('GET', '/test/things?unknown=1', { token, headers: ims });
  t.is(refused.statusCode, 429, 'an empty bucket wins over the 400, as for requests charged before validation');
  t.is(refused.body.error.code, 'rate_limited');
  // A 304 still costs nothing, even now.
  const never = await t0.request('GET', '/test/things', { token, headers: { 'if-modified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' } });
  t.is(never.statusCode, 304);
});
