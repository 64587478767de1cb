import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

// A form-encoded or multipart body sent to a JSON route is parsed by hapi into fields, and
// the route's validation then answered "name is required … is not allowed": a client that
// forgot `-H 'Content-Type: application/json'` could not tell why. The edge answers 415.
let t0: TestApp;
let token: string;
test.before(async () => {
  t0 = await createTestApp();
  ({ token } = await t0.tenant());
});
test.after.always(async () => t0?.close());

test('a form-encoded or multipart POST to a JSON route is 415 saying to send JSON; nothing is created', async (t) => {
  const { token } = await t0.tenant();
  for (const [type, body] of [
    ['application/x-www-form-urlencoded', 'name=example.com&type=domain'],
    ['multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nexample.com\r\n--b--\r\n'],
  ] as const) {
    const res = await t0.request('POST', '/api/assets', { token, payload: body, headers: { 'content-type': type } });
    t.is(res.statusCode, 415, res.raw);
    t.is(res.body.error.code, 'unsupported_media_type');
    t.regex(res.body.error.message, /Content-Type: application\/json/);
    t.regex(res.body.error.message, new RegExp(type.split(';')[0]!.replace('/', '\\/')));
  }
  t.is((await t0.request('GET', '/api/assets', { token })).body.meta.total, 0);
});

test('authentication still comes first, and the same body as JSON is accepted', async (t) => {
  const anon = await t0.request('POST', '/api/assets', { token: null, payload: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.is(anon.statusCode, 401);
  const ok = await t0.request('POST', '/api/assets', { token, payload: { name: 'example.org', type: 'domain' } });
  t.is(ok.statusCode, 201, ok.raw);
});

test('a type the route does not take names what it does take', async (t) => {
  const res = await t0.request('POST', '/api/playbooks/import', { token, payload: '<xml/>', headers: { 'content-type': 'application/xml' } });
  t.is(res.statusCode, 415);
  t.regex(res.body.error.message, /application\/json/);
});
