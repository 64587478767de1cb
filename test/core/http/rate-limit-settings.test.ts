import Hapi from '@hapi/hapi';
import test from 'ava';
import { assertRouteRateLimits, endpointLimit, RATE_LIMIT_EXEMPT } from '../../../core/http/rate-limit-settings.ts';
import { createTestApp } from '../../_helpers/harness/test-app.ts';

function serverWith(...limits: unknown[]) {
  const server = Hapi.server();
  limits.forEach((rateLimit, i) =>
    server.route({ method: 'POST', path: `/r${i}`, options: { plugins: { rampart: { rateLimit: rateLimit as never } } }, handler: () => null }),
  );
  return server;
}

test('well-formed declarations pass', (t) => {
  t.notThrows(() => assertRouteRateLimits(serverWith(endpointLimit('scan-create', 10), RATE_LIMIT_EXEMPT, endpointLimit('login', 10, { accountField: 'email', burst: 3 }))));
  t.notThrows(() => assertRouteRateLimits(serverWith(endpointLimit('shared', 5), endpointLimit('shared', 5))), 'two routes may share one bucket');
});

test('malformed declarations stop start-up, naming the route', (t) => {
  t.throws(() => assertRouteRateLimits(serverWith({ perMinute: '10', key: 'x' })), { message: /POST \/r0/ });
  t.throws(() => assertRouteRateLimits(serverWith({ perMinute: 10 })), { message: /"key" is required/ });
  t.throws(() => assertRouteRateLimits(serverWith(true)), { message: /rateLimit/ });
  t.throws(() => assertRouteRateLimits(serverWith(endpointLimit('standard', 10))), { message: /key/ }, 'tier names are reserved');
  t.throws(() => assertRouteRateLimits(serverWith(endpointLimit('Scan Create', 10))));
  t.throws(() => assertRouteRateLimits(serverWith(endpointLimit('dup', 5), endpointLimit('dup', 6))), { message: /different numbers on POST \/r0 and POST \/r1/ });
});

test('perAddress: needs an account field, and its <key>-address bucket is checked like any key', (t) => {
  t.notThrows(() => assertRouteRateLimits(serverWith(endpointLimit('login', 10, { accountField: 'email', perAddress: 20 }))));
  t.throws(() => assertRouteRateLimits(serverWith(endpointLimit('login', 10, { perAddress: 20 }))), { message: /accountField/ });
  t.throws(
    () => assertRouteRateLimits(serverWith(endpointLimit('login', 10, { accountField: 'email', perAddress: 20 }), endpointLimit('login-address', 5))),
    { message: /"login-address" is declared with different numbers/ },
  );
});

test('endpointOverrides change the per-address login bucket by its own key', async (t) => {
  const t0 = await createTestApp({ rateLimit: { endpointLimits: true, endpointOverrides: { 'login-address': { perMinute: 2 } } } });
  t.teardown(() => t0.close());
  const statuses = [];
  for (let i = 0; i < 3; i++) statuses.push((await t0.request('POST', '/api/user/auth/login', { token: null, payload: { email: `user${i}@example.com`, password: 'x' } })).statusCode);
  t.deepEqual(statuses, [401, 401, 429]);
});

test('rateLimit.enabled = false: no headers and no 429 anywhere (the benchmark baseline)', async (t) => {
  const t0 = await createTestApp({ rateLimit: { enabled: false, tiers: { standard: { perMinute: 1, burst: 1, streams: 5 } } } });
  t.teardown(() => t0.close());
  const { token } = await t0.tenant();
  for (let i = 0; i < 3; i++) {
    const res = await t0.request('GET', '/api/user/me', { token });
    t.is(res.statusCode, 200);
    t.is(res.headers['x-ratelimit-limit'], undefined);
  }
});

test('endpointOverrides replace a route\'s numbers by key', async (t) => {
  const t0 = await createTestApp({ rateLimit: { endpointLimits: true, endpointOverrides: { login: { perMinute: 2 } } } });
  t.teardown(() => t0.close());
  const statuses = [];
  for (let i = 0; i < 3; i++) statuses.push((await t0.request('POST', '/api/user/auth/login', { token: null, payload: { email: 'a@example.com', password: 'x' } })).statusCode);
  t.deepEqual(statuses, [401, 401, 429]);
});
