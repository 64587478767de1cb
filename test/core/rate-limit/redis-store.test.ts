import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import test from 'ava';
import { ServiceUnavailableError } from '../../../core/errors.ts';
import { createLogger } from '../../../core/logger.ts';
import { FailoverStore } from '../../../core/rate-limit/failover-store.ts';
import { MemoryStore } from '../../../core/rate-limit/memory-store.ts';
import { retryAfterSeconds } from '../../../core/rate-limit/rate-limit-headers.ts';
import { RedisStore } from '../../../core/rate-limit/redis-store.ts';
import type { BucketPolicy } from '../../../core/rate-limit/token-bucket.ts';
import { serviceAvailable } from '../../_helpers/harness/local-service.ts';

// The real Redis of the test machine (CI: 127.0.0.1:6379); every test uses its own key prefix.
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const up = await serviceAvailable('Redis', REDIS_URL);
const run = up ? test : test.skip;
const T0 = 1_700_000_000_000;
const standard: BucketPolicy = { key: 't:ten_a', name: 'standard', capacity: 20, perMinute: 100 };
const scanCreate: BucketPolicy = { key: 'e:scan-create:t:ten_a', name: 'scan-create', capacity: 10, perMinute: 10 };

function redisStore(prefix: string, clock?: () => number, extra: { url?: string; onError?: (e: Error) => void } = {}) {
  return new RedisStore({
    url: extra.url ?? REDIS_URL,
    keyPrefix: prefix,
    // Generous: a loaded CI machine must not turn a slow answer into a test failure.
    connectTimeoutMs: extra.url ? 1000 : 10_000,
    commandTimeoutMs: 10_000,
    slotTtlMs: 30_000,
    clock,
    onError: extra.onError,
  });
}

async function setup(t: { teardown(fn: () => unknown): void }) {
  const clock = { now: T0 };
  const prefix = `rampart:test:${randomUUID()}:`;
  const store = redisStore(prefix, () => clock.now);
  t.teardown(() => store.close());
  if (!(await store.ready())) throw new Error(`Redis at ${REDIS_URL} is not reachable`);
  return { clock, store, prefix };
}

async function drain(store: RedisStore, policies: BucketPolicy[]): Promise<number> {
  let n = 0;
  while ((await store.take(policies, 1)).allowed) n++;
  return n;
}

run('standard worked example on Redis: 20 at once, 21st refused, honest retry after 600 ms', async (t) => {
  const { clock, store } = await setup(t);
  t.is(await drain(store, [standard]), 20);
  const refused = await store.take([standard], 1);
  t.false(refused.allowed);
  t.is(retryAfterSeconds(refused.views), 1);
  clock.now = T0 + 599;
  t.false((await store.take([standard], 1)).allowed);
  clock.now = T0 + 600;
  t.true((await store.take([standard], 1)).allowed);
  t.false((await store.take([standard], 1)).allowed);
});

run('Redis take is all or nothing across the tier and endpoint buckets; a peek takes nothing', async (t) => {
  const { store } = await setup(t);
  t.true((await store.take([standard, scanCreate], 0)).allowed);
  t.is(await drain(store, [standard, scanCreate]), 10);
  t.is(await drain(store, [standard]), 10);
});

run('two stores (two processes) share one budget atomically under concurrency', async (t) => {
  const prefix = `rampart:test:${randomUUID()}:`;
  // Real Redis TIME here: both processes measure refill on the same clock.
  const stores = [redisStore(prefix), redisStore(prefix)];
  t.teardown(() => Promise.all(stores.map((s) => s.close())));
  t.deepEqual(await Promise.all(stores.map((s) => s.ready())), [true, true]);
  const policy: BucketPolicy = { key: 't:shared', name: 'standard', capacity: 20, perMinute: 1 };
  const results = await Promise.all(Array.from({ length: 60 }, (_, i) => stores[i % 2]!.take([policy], 1)));
  t.is(results.filter((r) => r.allowed).length, 20);
});

run('stream slots on Redis: max, release, and a crashed holder expires after the TTL', async (t) => {
  const { clock, store } = await setup(t);
  for (let i = 0; i < 5; i++) t.true((await store.acquireSlot('s:ten', `m${i}`, 5)).acquired);
  t.deepEqual(await store.acquireSlot('s:ten', 'm5', 5), { acquired: false, inUse: 5 });
  await store.releaseSlot('s:ten', 'm0');
  t.true((await store.acquireSlot('s:ten', 'm5', 5)).acquired, 'a released slot is free at once');
  // m1..m5 stop being renewed (their process died) except m5, renewed at 20 s.
  clock.now = T0 + 20_000;
  await store.renewSlots([{ key: 's:ten', member: 'm5' }]);
  clock.now = T0 + 30_001;
  t.deepEqual(await store.acquireSlot('s:ten', 'm6', 5), { acquired: true, inUse: 2 }, 'm1..m4 expired, m5 renewed');
  // A renewal racing a release does not bring the slot back.
  await store.releaseSlot('s:ten', 'm6');
  await store.renewSlots([{ key: 's:ten', member: 'm6' }]);
  t.deepEqual(await store.acquireSlot('s:ten', 'm7', 5), { acquired: true, inUse: 2 });
});

/** A port where nothing listens: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function capturingLogger() {
  const lines: Array<{ level: string; msg: string }> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: createLogger('info', sink), lines };
}

for (const mode of ['open', 'closed'] as const) {
  test(`Redis unreachable, fail-${mode}: ${mode === 'open' ? 'per-process memory buckets' : '503'}, logged once`, async (t) => {
    const { logger, lines } = capturingLogger();
    let failover: FailoverStore | null = null;
    const redis = redisStore('rampart:test:down:', undefined, { url: `redis://127.0.0.1:${await closedPort()}`, onError: (e) => failover?.failed(e) });
    failover = new FailoverStore(redis, new MemoryStore(), mode, logger);
    t.teardown(() => failover!.close());
    t.false(await redis.ready());
    const policy: BucketPolicy = { key: 't:x', name: 'standard', capacity: 3, perMinute: 1 };
    for (let i = 0; i < 5; i++) {
      if (mode === 'open') t.is((await failover.take([policy], 1)).allowed, i < 3);
      else await t.throwsAsync(failover.take([policy], 1), { instanceOf: ServiceUnavailableError });
    }
    t.true(failover.degraded);
    await new Promise((resolve) => setTimeout(resolve, 300)); // let reconnect attempts fail too
    const outage = lines.filter((l) => /Redis unreachable/.test(l.msg));
    t.is(outage.length, 1);
    t.is(outage[0]!.level, 'error');
  });
}
