import test from 'ava';
import { createServer } from 'node:net';
import { PollLoop } from '../../../core/work/poll-loop.ts';
import { startWatched } from '../../../core/work/loop-monitor.ts';
import { migrations } from '../../../core/db/migrations/index.ts';
import { createDb } from '../../../core/db/create-db.ts';
import { ReadinessService } from '../../../core/http/readiness-service.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { serviceAvailable } from '../../_helpers/harness/local-service.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const redisUp = await serviceAvailable('Redis', REDIS_URL);

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(async () => t0?.close());

test('GET /api/health/live answers without a token, a rate limit or a database question', async (t) => {
  const res = await t0.request('GET', '/api/health/live', { token: null });
  t.is(res.statusCode, 200);
  t.is(res.body.data.status, 'ok');
  t.is(res.body.data.version, t0.ctx.version);
  t.true(Number.isInteger(res.body.data.uptime_seconds));
  t.falsy(res.headers['x-ratelimit-limit']);
  t.is((await t0.request('GET', '/api/health/live?verbose=1', { token: null })).statusCode, 400);
});

test('GET /api/health/ready: 200 with every check when the database answers, the schema is current and no loop lags', async (t) => {
  const res = await t0.request('GET', '/api/health/ready', { token: null });
  t.is(res.statusCode, 200, res.raw);
  t.is(res.body.data.status, 'ready');
  const { database, migrations: schema, redis, loops } = res.body.data.checks;
  t.deepEqual(database, { status: 'ok', engine: t0.database.engine });
  t.like(schema, { status: 'current', applied: migrations.length, pending: [], unknown: [] });
  t.deepEqual(redis, { status: 'not_configured' });
  t.like(loops, { status: 'ok', max_lag_ms: t0.config.health.maxLoopLagMs });
  t.falsy(res.headers['x-ratelimit-limit']);
  t.is((await t0.request('GET', '/api/health', { token: null })).body.data.status, 'ok', 'GET /api/health is unchanged');
});

test('a started worker role reports its loops by background service', async (t) => {
  const app = await createTestApp();
  t.teardown(() => app.close());
  await app.ctx.background.registry.start(['api', 'worker']);
  const res = await app.request('GET', '/api/health/ready', { token: null });
  t.is(res.statusCode, 200, res.raw);
  const names = res.body.data.checks.loops.services.map((s: { name: string }) => s.name);
  for (const service of ['exports', 'retention', 'approvals', 'stream-hub']) t.true(names.includes(service), `${service} in ${names}`);
  for (const s of res.body.data.checks.loops.services) {
    t.is(s.status, 'ok');
    t.true(s.loops >= 1);
  }
});

test('a stuck loop makes the process not ready (503 naming the service), on an injected clock', async (t) => {
  const app = await createTestApp({ health: { maxLoopLagMs: 60_000, checkTimeoutMs: 2000 } });
  t.teardown(() => app.close());
  let now = Date.now();
  let release!: () => void;
  const loop = new PollLoop({ round: () => new Promise<void>((r) => (release = r)), intervalMs: 1000, onError: () => undefined, clock: () => now });
  startWatched(app.ctx.background.registry.loops, 'stuck-service', () => loop.start());
  t.teardown(async () => {
    const stopped = loop.stop();
    release();
    await stopped;
  });
  t.is((await app.request('GET', '/api/health/ready', { token: null })).statusCode, 200);

  now += 60_001;
  const res = await app.request('GET', '/api/health/ready', { token: null });
  t.is(res.statusCode, 503);
  t.is(res.body.status, 'error');
  t.is(res.body.error.code, 'service_unavailable');
  t.is(res.body.error.message, 'Not ready: loops.');
  const stuck = res.body.error.checks.loops.services.find((s: { name: string }) => s.name === 'stuck-service');
  t.like(stuck, { status: 'lagging', loops: 1, lag_ms: 60_001 });
  t.is(res.body.error.checks.loops.status, 'lagging');
  t.is(res.body.error.checks.database.status, 'ok');
});

test('a migration this code knows but the database lacks is not ready; one it does not know is "ahead" and ready', async (t) => {
  const app = await createTestApp();
  t.teardown(() => app.close());
  const last = migrations[migrations.length - 1]!.name;
  const row = await app.ctx.db('knex_migrations').where('name', last).first();
  await app.ctx.db('knex_migrations').where('name', last).delete();
  const pending = await app.request('GET', '/api/health/ready', { token: null });
  t.is(pending.statusCode, 503);
  t.like(pending.body.error.checks.migrations, { status: 'pending', pending: [last] });
  t.is(pending.body.error.message, 'Not ready: migrations.');

  await app.ctx.db('knex_migrations').insert(row);
  await app.ctx.db('knex_migrations').insert({ name: '999-from-a-newer-version', batch: 99, migration_time: new Date() });
  const ahead = await app.request('GET', '/api/health/ready', { token: null });
  t.is(ahead.statusCode, 200, ahead.raw);
  t.like(ahead.body.data.checks.migrations, { status: 'ahead', pending: [], unknown: ['999-from-a-newer-version'] });
});

test('the database gone: 503 with the database failed and the migrations unknown, no driver message', async (t) => {
  const app = await createTestApp();
  t.teardown(() => app.close());
  // The readiness service's own handle on a database that is gone (the app's must stay usable to stop it).
  const gone = createDb(app.config.database.url);
  await gone.destroy();
  app.ctx.services.readiness = new ReadinessService(gone, { health: app.config.health, redisUrl: null, loops: app.ctx.background.registry.loops, logger: app.ctx.logger });
  const res = await app.request('GET', '/api/health/ready', { token: null });
  t.is(res.statusCode, 503);
  t.like(res.body.error.checks, { database: { status: 'failed', engine: app.database.engine, reason: 'unreachable' }, migrations: { status: 'unknown' } });
  t.is(res.body.error.message, 'Not ready: database, migrations.');
  t.notRegex(res.raw, /pool|destroy|knex|acquire/i, 'the cause is logged, not answered');
  t.is((await app.request('GET', '/api/health/live', { token: null })).statusCode, 200, 'still alive');
});

test('Redis configured but not answering: 503 with redis failed', async (t) => {
  const closed = await new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
  const app = await createTestApp({ redis: { url: `redis://127.0.0.1:${closed}` }, health: { maxLoopLagMs: 300_000, checkTimeoutMs: 500 } });
  t.teardown(() => app.close());
  const res = await app.request('GET', '/api/health/ready', { token: null });
  t.is(res.statusCode, 503);
  t.is(res.body.error.checks.redis.status, 'failed');
  t.is(res.body.error.message, 'Not ready: redis.');
});

(redisUp ? test : test.skip)('Redis configured and answering: ready, redis ok', async (t) => {
  const app = await createTestApp({ redis: { url: REDIS_URL } });
  t.teardown(() => app.close());
  const res = await app.request('GET', '/api/health/ready', { token: null });
  t.is(res.statusCode, 200, res.raw);
  t.deepEqual(res.body.data.checks.redis, { status: 'ok' });
});
