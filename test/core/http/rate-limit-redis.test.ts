import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import test from 'ava';
import { createLogger } from '../../../core/logger.ts';
import { StreamSlotsExhaustedError } from '../../../core/rate-limit/rate-limiter.ts';
import { serviceAvailable } from '../../_helpers/harness/local-service.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { DEFAULT_RATE_LIMITS } from '../../_helpers/harness/rate-limit-config.ts';

// The real Redis of the test machine (CI: 127.0.0.1:6379).
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const up = await serviceAvailable('Redis', REDIS_URL);
const run = up ? test : test.skip;
const runSerial = up ? test.serial : test.skip;
const clock = { now: Date.now() };
const limits = (extra: Record<string, unknown> = {}) => ({
  ...DEFAULT_RATE_LIMITS,
  // Generous timeouts: on a loaded machine a slow Redis answer must not look like an outage.
  redis: { ...DEFAULT_RATE_LIMITS.redis, keyPrefix: `rampart:test:${randomUUID()}:`, connectTimeoutMs: 10_000, commandTimeoutMs: 10_000 },
  ...extra,
});

let one: TestApp;
let two: TestApp;
test.before(async () => {
  if (!up) return;
  const rateLimit = limits();
  one = await createTestApp({ redis: { url: REDIS_URL }, rateLimit }, { rateLimitClock: () => clock.now });
  // A second Rampart process: same database, same Redis, its own server and limiter.
  two = await createTestApp({ redis: { url: REDIS_URL }, rateLimit, database: { url: one.database.url } }, { rateLimitClock: () => clock.now });
});
test.after.always(async () => {
  if (!up) return;
  await two?.close();
  await one?.close();
});

runSerial('two server instances share one budget per tenant through Redis', async (t) => {
  t.is(one.ctx.rateLimiter.store.kind, 'redis');
  const { token } = await one.tenant({ tier: 'standard' });
  let ok = 0;
  for (let i = 0; i < 20; i++) {
    const res = await (i % 2 ? two : one).request('GET', '/api/user/me', { token });
    if (res.statusCode === 200) ok++;
    t.is(res.headers['x-ratelimit-remaining'], String(19 - i));
  }
  t.is(ok, 20);
  const refused = [await one.request('GET', '/api/user/me', { token }), await two.request('GET', '/api/user/me', { token })];
  t.deepEqual(refused.map((r) => r.statusCode), [429, 429]);
  t.is(refused[1]!.body.error.retry_after, 1);
  clock.now += 1000;
  t.is((await two.request('GET', '/api/user/me', { token })).statusCode, 200, 'honest retry_after on Redis too');
});

run('requests without a valid token share one client-address budget across instances: 429 after 20', async (t) => {
  const remoteAddress = '10.6.0.1';
  const statuses = [];
  for (let i = 0; i < 21; i++) {
    const headers = i % 3 ? { authorization: 'Bearer rmp_unknown-token' } : {};
    const res = await (i % 2 ? two : one).server.inject({ method: 'GET', url: '/api/assets', headers, remoteAddress });
    statuses.push(res.statusCode);
    if (i < 20) t.is(res.headers['x-ratelimit-remaining'], String(19 - i));
    else {
      t.is(res.headers['retry-after'], '1');
      t.is(res.headers.ratelimit, '"anonymous";r=0;t=1');
    }
  }
  t.deepEqual(statuses, [...Array(20).fill(401), 429]);
});

runSerial('login: the per-address limit across emails is shared through Redis', async (t) => {
  const statuses = [];
  for (let i = 0; i < 30; i++) {
    const res = await (i % 2 ? two : one).server.inject({ method: 'POST', url: '/api/user/auth/login', remoteAddress: '10.6.0.2', payload: { email: `spray-${i}@example.com`, password: 'Winter2026!' } });
    statuses.push(res.statusCode);
    clock.now += 750;
  }
  t.deepEqual(statuses.slice(0, 27), [...Array(26).fill(401), 429]);
});

run('concurrent requests on both instances never overspend (atomic Lua)', async (t) => {
  const { token } = await one.tenant({ tier: 'standard' });
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? two : one).request('GET', '/api/user/me', { token })));
  t.is(results.filter((r) => r.statusCode === 200).length, 20);
  t.is(results.filter((r) => r.statusCode === 429).length, 20);
});

run('stream slots are shared too: 5 per Standard tenant across instances, freed on release', async (t) => {
  const caller = { tenantId: `ten_${randomUUID()}`, tier: 'standard' as const };
  const releases = [];
  for (let i = 0; i < 5; i++) releases.push(await (i % 2 ? two : one).ctx.rateLimiter.acquireStreamSlot(caller));
  await t.throwsAsync(one.ctx.rateLimiter.acquireStreamSlot(caller), { instanceOf: StreamSlotsExhaustedError });
  await t.throwsAsync(two.ctx.rateLimiter.acquireStreamSlot(caller), { instanceOf: StreamSlotsExhaustedError });
  releases[0]!();
  releases[0]!();
  await new Promise((resolve) => setTimeout(resolve, 50)); // release is fire-and-forget
  const again = await two.ctx.rateLimiter.acquireStreamSlot(caller);
  await t.throwsAsync(one.ctx.rateLimiter.acquireStreamSlot(caller), { instanceOf: StreamSlotsExhaustedError });
  for (const release of [...releases.slice(1), again]) release();
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

for (const failureMode of ['open', 'closed'] as const) {
  test(`Redis unreachable at start-up and after, fail-${failureMode}: the service keeps answering, logged once`, async (t) => {
    const lines: Array<{ msg: string }> = [];
    const logger = createLogger('info', new Writable({ write: (chunk, _e, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
    const rateLimit = limits({ redis: { ...DEFAULT_RATE_LIMITS.redis, keyPrefix: 'rampart:test:down:', failureMode, connectTimeoutMs: 200 } });
    const down = await createTestApp({ redis: { url: `redis://127.0.0.1:${await closedPort()}` }, rateLimit }, { logger, rateLimitClock: () => clock.now });
    t.teardown(() => down.close());
    const { token } = await down.tenant({ tier: 'standard' });
    const statuses = [];
    for (let i = 0; i < 22; i++) statuses.push((await down.request('GET', '/api/user/me', { token })).statusCode);
    if (failureMode === 'open') {
      t.deepEqual(statuses, [...Array(20).fill(200), 429, 429], 'this process limits on its own memory buckets');
      t.truthy((await down.request('GET', '/api/user/me', { token })).headers['x-ratelimit-limit']);
    } else {
      t.true(statuses.every((s) => s === 503));
      const res = await down.request('GET', '/api/user/me', { token });
      t.is(res.body.error.code, 'service_unavailable');
      t.is(res.headers['retry-after'], String(res.body.error.retry_after), 'Retry-After as on a 429');
    }
    t.is((await down.request('GET', '/api/health', { token: null })).statusCode, 200, 'health needs no limiter');
    t.is(lines.filter((l) => /Redis unreachable/.test(l.msg)).length, 1);
  });
}
