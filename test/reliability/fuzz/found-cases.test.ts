import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { errorShapeProblem } from './error-shape.ts';

// Requests the OpenAPI fuzzer found answering 5xx (or worse), kept as fixed cases so they stay fixed.

let t0: TestApp;
let token: string;
test.before(async () => {
  t0 = await createTestApp();
  token = (await t0.tenant()).token;
});
test.after.always(async () => {
  await t0?.close();
});

test('the database engine reported is the one in use (SQLite was taken for MariaDB once its knex client became a class)', async (t) => {
  const health = await t0.request('GET', '/api/health', { token: null });
  t.is(health.statusCode, 200);
  t.is(health.body.data.database.engine, t0.database.engine);
});

test('bulk import: a row whose name cell is blank is a row error, not a 500 (the error echoed name "" against a non-empty schema)', async (t) => {
  for (const csv of ['name,type\n ,*', 'name,type,tags\n"",ip,x\n']) {
    const res = await t0.server.inject({ method: 'POST', url: '/api/assets/bulk', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' }, payload: csv });
    t.is(res.statusCode, 200, res.payload);
    const body = JSON.parse(res.payload);
    t.like(body.data, { imported: 0, failed: 1 });
    t.is(body.data.errors[0].name, '');
  }
  const json = await t0.request('POST', '/api/assets/bulk', { token, payload: { assets: [{ name: '', type: 'ip' }] } });
  t.is(json.statusCode, 200, json.raw);
  t.is(json.body.data.errors[0].name, '');
});

test('the error-shape check accepts the documented shape and refuses others', (t) => {
  const json = 'application/json; charset=utf-8';
  t.is(errorShapeProblem('{"status":"error","error":{"code":"validation_failed","message":"per_page must be a number","details":[]}}', json), null);
  t.truthy(errorShapeProblem('{"statusCode":400,"error":"Bad Request","message":"Invalid"}', json));
  t.truthy(errorShapeProblem('{"status":"error","error":{"code":"Bad Request","message":"x"}}', json));
  t.truthy(errorShapeProblem('{"status":"error","error":{"code":"x","message":""}}', json));
  t.truthy(errorShapeProblem('', json));
  t.truthy(errorShapeProblem('{"status":"error","error":{"code":"x","message":"y"}}', 'text/html'));
  t.truthy(errorShapeProblem('{"status":"error","error":{"code":"internal_error","message":"SQLITE_CONSTRAINT: UNIQUE failed"}}', json));
});

test('bulk import: a CSV quote csv-parse calls INVALID_OPENING_QUOTE (no CSV_ prefix) is a 400 invalid_csv, not a 500', async (t) => {
  for (const csv of ['nom,type\r\n"a","b"\n"unterminated', 'name,type\r\n"a","b"\nx,"y"z"']) {
    const res = await t0.server.inject({ method: 'POST', url: '/api/assets/bulk', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' }, payload: csv });
    t.is(res.statusCode, 400, res.payload);
    t.is(JSON.parse(res.payload).error.code, 'invalid_csv');
  }
});

test('a validation message ends with one full stop, also when its detail brings its own (search= once ended "..")', async (t) => {
  for (const q of ['search=***', 'search=a.', `search=${'a'.repeat(300)}`, 'per_page=x']) {
    const res = await t0.request('GET', `/api/findings?${q}`, { token });
    t.is(res.statusCode, 400, res.raw);
    t.regex(res.body.error.message, /[^.]\.$/, res.body.error.message);
  }
});
