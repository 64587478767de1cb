import test from 'ava';
import Joi from 'joi';
import { loadConfig } from '../../config/load-config.ts';
import { createTestApp, type TestApp } from '../_helpers/harness/test-app.ts';

/** A route whose answer breaks its own response schema. */
function addLyingRoute(t0: TestApp): void {
  t0.server.route({
    method: 'GET',
    path: '/api/test/lying',
    options: {
      auth: false,
      validate: { query: Joi.object({}) },
      response: { status: { 200: Joi.object({ ok: Joi.boolean().required() }) } },
    },
    handler: () => ({ ok: 'not a boolean' }),
  });
}

// Response schemas cost a joi pass per response: they run in tests (where they keep the
// OpenAPI document honest) and never on the production path.
test('response schemas are enforced with http.validateResponses (tests) and not run without it (the default)', async (t) => {
  t.false(loadConfig({ env: {} }).http.validateResponses, 'off in config/default.json');
  t.true(loadConfig({ env: { NODE_ENV: 'test' } }).http.validateResponses, 'on in config/test.json');
  const checked = await createTestApp({ http: { validateResponses: true } });
  const production = await createTestApp({ http: { validateResponses: false } });
  t.teardown(() => Promise.all([checked.close(), production.close()]).then(() => undefined));
  addLyingRoute(checked);
  addLyingRoute(production);
  t.is((await checked.request('GET', '/api/test/lying', { token: null })).statusCode, 500);
  const unchecked = await production.request('GET', '/api/test/lying', { token: null });
  t.is(unchecked.statusCode, 200);
  t.deepEqual(unchecked.body, { ok: 'not a boolean' });
  const route = production.server.table().find((r) => r.path === '/api/assets/{id}')!;
  t.is(route.settings.response?.sample, 0, 'sample 0: hapi leaves response validation out of the request lifecycle');
});
