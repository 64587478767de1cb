import test from 'ava';
import { compileErrors, validate } from '@readme/openapi-parser';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(async () => {
  await t0?.close();
});

test('GET /api/openapi.json is a valid OpenAPI 3.1 document', async (t) => {
  const res = await t0.request('GET', '/api/openapi.json', { token: null });
  t.is(res.statusCode, 200);
  t.is(res.body.openapi, '3.1.0');
  // The validator mutates what it is given.
  const result = await validate(structuredClone(res.body));
  t.true(result.valid, result.valid ? '' : compileErrors(result));
  t.truthy(res.body.paths['/api/health'].get);
  t.truthy(res.body.paths['/api/admin/tenants'].post.requestBody);
  t.deepEqual(res.body.paths['/api/health'].get.security, []);
  t.deepEqual(res.body.paths['/api/admin/tenants'].get['x-required-scopes'], ['admin']);
});

test('every route validates its query, its path params and (for writes) its payload', (t) => {
  for (const route of t0.server.table()) {
    const validate = route.settings.validate as { query?: unknown; params?: unknown; payload?: unknown };
    const name = `${route.method.toUpperCase()} ${route.path}`;
    t.truthy(validate.query, `${name} has no query validation`);
    if (route.path.includes('{')) t.truthy(validate.params, `${name} has no params validation`);
    if (['post', 'put', 'patch'].includes(route.method)) {
      const streams = (route.settings.payload as { parse?: boolean } | undefined)?.parse === false;
      t.true(Boolean(validate.payload) || streams, `${name} has no payload validation`);
    }
  }
});

test('every documented route has a description and a response schema', (t) => {
  for (const route of t0.server.table().filter((r) => (r.settings.tags ?? []).includes('api'))) {
    const name = `${route.method.toUpperCase()} ${route.path}`;
    t.truthy(route.settings.description, `${name} has no description`);
    const status = (route.settings.response as { status?: Record<string, unknown> } | undefined)?.status;
    t.truthy(status && Object.keys(status).length, `${name} has no response schema`);
  }
});

test('browsable docs at /docs load Swagger UI pointing at the document', async (t) => {
  const page = await t0.request('GET', '/docs', { token: null });
  t.is(page.statusCode, 200);
  t.regex(String(page.headers['content-type']), /text\/html/);
  t.true(page.raw.includes('/docs/assets/swagger-ui-bundle.js'));
  const init = await t0.request('GET', '/docs/init.js', { token: null });
  t.true(init.raw.includes('/api/openapi.json'));
  const bundle = await t0.request('GET', '/docs/assets/swagger-ui-bundle.js', { token: null });
  t.is(bundle.statusCode, 200);
  t.true(bundle.raw.length > 100_000);
  const traversal = await t0.request('GET', '/docs/assets/..%2Fpackage.json', { token: null });
  t.is(traversal.statusCode, 400);
});

test('the document describes rate-limit headers, 429, per-endpoint limits and conditional GETs', async (t) => {
  const doc = (await t0.request('GET', '/api/openapi.json', { token: null })).body;
  const list = doc.paths['/api/findings'].get;
  t.truthy(list.responses['304'], 'a list with Last-Modified documents 304');
  t.true(list.parameters.some((p: { name: string; in: string }) => p.name === 'If-Modified-Since' && p.in === 'header'));
  t.deepEqual(Object.keys(list.responses['200'].headers).sort(), ['Last-Modified', 'RateLimit', 'RateLimit-Policy', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']);
  t.is(list.responses['429'].$ref, '#/components/responses/E429');
  t.truthy(doc.components.responses.E429.headers['Retry-After']);
  t.truthy(doc.components.headers['X-RateLimit-Reset']);
  const create = doc.paths['/api/scan/create'].post;
  t.deepEqual(create['x-rate-limit'], { key: 'scan-create', per_minute: 10 });
  t.regex(create.description, /Rate limit: 10 per minute/);
  t.falsy(create.responses['304'], 'writes are never conditional');
  const health = doc.paths['/api/health'].get;
  t.falsy(health.responses['429'], 'health is never rate limited');
  t.falsy(health.responses['200'].headers);
});
