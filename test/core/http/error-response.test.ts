import test from 'ava';
import Joi from 'joi';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp({ http: { maxPayloadBytes: 2048, validateResponses: true } });
  // A route that fails the way a driver does, to prove internals never leak.
  t0.server.route({
    method: 'GET',
    path: '/api/test/explode',
    options: { auth: false, validate: { query: Joi.object({}) } },
    handler: () => {
      throw new Error("ER_PARSE_ERROR: You have an error in your SQL syntax near 'SELECT * FROM api_tokens'");
    },
  });
});
test.after.always(async () => {
  await t0?.close();
});

function assertErrorShape(t: import('ava').ExecutionContext, body: any, code: string): void {
  t.is(body.status, 'error');
  t.is(body.error.code, code);
  t.is(typeof body.error.message, 'string');
  t.true(body.error.message.length > 0);
}

test('unknown routes and methods: 404 in the error shape', async (t) => {
  for (const [method, url] of [['GET', '/nope'], ['GET', '/api/unknown/thing'], ['DELETE', '/api/health'], ['POST', '/']]) {
    const res = await t0.request(method!, url!);
    t.is(res.statusCode, 404, `${method} ${url}`);
    assertErrorShape(t, res.body, 'not_found');
  }
});

test('malformed JSON is 400 invalid_json and writes nothing', async (t) => {
  const res = await t0.request('POST', '/api/admin/tenants', { payload: '{"name": "half', headers: { 'content-type': 'application/json' } });
  t.is(res.statusCode, 400);
  assertErrorShape(t, res.body, 'invalid_json');
  const list = await t0.request('GET', '/api/admin/tenants');
  t.false(list.raw.includes('half'));
});

test('oversized bodies are 413 payload_too_large', async (t) => {
  const res = await t0.request('POST', '/api/admin/tenants', { payload: { name: 'x'.repeat(4096) } });
  t.is(res.statusCode, 413);
  assertErrorShape(t, res.body, 'payload_too_large');
});

test('unsupported content types are 415', async (t) => {
  const res = await t0.request('POST', '/api/admin/tenants', { payload: 'name=x', headers: { 'content-type': 'application/x-unknown' } });
  t.is(res.statusCode, 415);
  assertErrorShape(t, res.body, 'unsupported_media_type');
});

test('wrong types and missing fields list every problem', async (t) => {
  const res = await t0.request('POST', '/api/admin/tenants', { payload: { tier: 7, surprise: true } });
  t.is(res.statusCode, 400);
  assertErrorShape(t, res.body, 'validation_failed');
  const fields = [...new Set(res.body.error.details.map((d: { field: string }) => d.field))].sort();
  t.deepEqual(fields, ['name', 'surprise', 'tier']);
  t.true(res.body.error.details.every((d: { location: string }) => d.location === 'payload'));
});

test('unknown query parameters are rejected', async (t) => {
  const res = await t0.request('GET', '/api/admin/tenants?colour=blue');
  t.is(res.statusCode, 400);
  t.is(res.body.error.details[0].field, 'colour');
  t.is(res.body.error.details[0].location, 'query');
});

test('a 500 shows no stack, SQL or driver message, only a request id', async (t) => {
  const res = await t0.request('GET', '/api/test/explode', { headers: { 'x-request-id': 'trace-123' } });
  t.is(res.statusCode, 500);
  assertErrorShape(t, res.body, 'internal_error');
  t.is(res.body.error.message, 'An unexpected error occurred.');
  t.is(res.body.error.request_id, 'trace-123');
  t.is(res.headers['x-request-id'], 'trace-123');
  for (const leak of ['SQL', 'ER_PARSE', 'api_tokens', 'at ', '.ts']) t.false(res.raw.includes(leak), leak);
});

test('request ids: echoed when sane, generated otherwise', async (t) => {
  const ok = await t0.request('GET', '/api/health', { headers: { 'x-request-id': 'abc-1' } });
  t.is(ok.headers['x-request-id'], 'abc-1');
  const weird = await t0.request('GET', '/api/health', { headers: { 'x-request-id': 'bad id with spaces' } });
  t.truthy(weird.headers['x-request-id']);
  t.not(weird.headers['x-request-id'], 'bad id with spaces');
});
