import test from 'ava';
import { rateLimitHeaders, retryAfterSeconds } from '../../../core/rate-limit/rate-limit-headers.ts';
import { MemoryStore } from '../../../core/rate-limit/memory-store.ts';
import type { BucketPolicy } from '../../../core/rate-limit/token-bucket.ts';

const T0 = 1_700_000_000_000;
const standard: BucketPolicy = { key: 't:ten_a', name: 'standard', capacity: 20, perMinute: 100 };
const premium: BucketPolicy = { key: 't:ten_p', name: 'premium', capacity: 100, perMinute: 1000 };
const enterprise: BucketPolicy = { key: 't:ten_e', name: 'enterprise', capacity: 500, perMinute: 10000 };
const scanCreate: BucketPolicy = { key: 'e:scan-create:t:ten_a', name: 'scan-create', capacity: 10, perMinute: 10 };

function clocked() {
  const clock = { now: T0 };
  const store = new MemoryStore(() => clock.now);
  return { clock, store };
}

/** Takes until the first refusal; returns how many were allowed. */
async function drain(store: MemoryStore, policies: BucketPolicy[]): Promise<number> {
  let n = 0;
  while ((await store.take(policies, 1)).allowed) n++;
  return n;
}

for (const policy of [standard, premium, enterprise]) {
  test(`a fresh ${policy.name} bucket allows exactly its burst (${policy.capacity}) at once, then refuses`, async (t) => {
    const { store } = clocked();
    t.is(await drain(store, [policy]), policy.capacity);
    t.false((await store.take([policy], 1)).allowed);
    await store.close();
  });
}

test('standard worked example: 20 at once, then one token every 600 ms, honest Retry-After', async (t) => {
  const { clock, store } = clocked();
  t.is(await drain(store, [standard]), 20);
  const refused = await store.take([standard], 1);
  t.false(refused.allowed);
  t.is(retryAfterSeconds(refused.views), 1);
  clock.now = T0 + 599;
  t.false((await store.take([standard], 1)).allowed, 'not one ms early');
  clock.now = T0 + 600;
  t.true((await store.take([standard], 1)).allowed);
  t.false((await store.take([standard], 1)).allowed);
  // Empty again at 600 ms: full after 20 x 600 ms = 12 s.
  clock.now = T0 + 600 + 12_000;
  t.is(await drain(store, [standard]), 20);
  await store.close();
});

test('over one minute a standard tenant gets its burst plus 100, never more', async (t) => {
  const { clock, store } = clocked();
  let allowed = 0;
  for (let ms = 0; ms <= 60_000; ms += 50) {
    clock.now = T0 + ms;
    allowed += await drain(store, [standard]);
  }
  t.is(allowed, 20 + 100);
  await store.close();
});

test('retry_after is honest: waiting exactly that long always succeeds', async (t) => {
  const policies: BucketPolicy[] = [
    { key: 'a', name: 'a', capacity: 1, perMinute: 1 },
    { key: 'b', name: 'b', capacity: 5, perMinute: 7 },
    { key: 'c', name: 'c', capacity: 3, perMinute: 45 },
    { key: 'd', name: 'd', capacity: 10, perMinute: 10 },
  ];
  for (const policy of policies) {
    const { clock, store } = clocked();
    for (let round = 0; round < 5; round++) {
      await drain(store, [policy]);
      const refused = await store.take([policy], 1);
      const wait = retryAfterSeconds(refused.views);
      t.true(Number.isInteger(wait) && wait >= 1);
      clock.now += wait * 1000;
      t.true((await store.take([policy], 1)).allowed, `${policy.key} round ${round} after ${wait}s`);
      clock.now += 137; // land at an odd offset for the next round
    }
    await store.close();
  }
});

test('tier and endpoint buckets: all or nothing', async (t) => {
  const { store } = clocked();
  t.is(await drain(store, [standard, scanCreate]), 10, 'the endpoint bucket binds first');
  // The refused 11th took nothing from the tier bucket: 10 tier tokens are left.
  t.is(await drain(store, [standard]), 10);
  await store.close();
});

test('a peek (cost 0) takes nothing', async (t) => {
  const { store } = clocked();
  for (let i = 0; i < 50; i++) t.true((await store.take([scanCreate], 0)).allowed);
  t.is(await drain(store, [scanCreate]), 10);
  const peek = await store.take([scanCreate], 0);
  t.true(peek.allowed, 'a peek is never refused');
  await store.close();
});

test('headers: binding bucket in X-RateLimit-*, every bucket in the IETF fields', async (t) => {
  const { clock, store } = clocked();
  for (let i = 0; i < 3; i++) await store.take([standard, scanCreate], 1);
  clock.now = T0 + 100;
  const outcome = await store.take([standard, scanCreate], 1);
  const h = rateLimitHeaders(outcome.views, false);
  // standard: 20 - 4 + 100 ms x 100/min = 16.1666 tokens; scan-create: 10 - 4 + 100 ms x 10/min = 6.0166.
  t.is(h['x-ratelimit-limit'], '10');
  t.is(h['x-ratelimit-remaining'], '6');
  // scan-create is full after (10 - 6.0166) tokens x 6000 ms = 23900 ms.
  t.is(h['x-ratelimit-reset'], String(Math.ceil((T0 + 100 + 23_900) / 1000)));
  t.is(h['ratelimit-policy'], '"standard";q=100;w=60;burst=20, "scan-create";q=10;w=60');
  // Next token: standard in 0.8333 tokens x 600 ms = 500 ms -> 1 s; scan-create in 5900 ms -> 6 s.
  t.is(h.ratelimit, '"standard";r=16;t=1, "scan-create";r=6;t=6');
  await store.close();
});

test('on refusal the headers and Retry-After follow the bucket that refused', async (t) => {
  const { store } = clocked();
  await drain(store, [standard, scanCreate]);
  const refused = await store.take([standard, scanCreate], 1);
  const h = rateLimitHeaders(refused.views, true);
  t.is(h['x-ratelimit-limit'], '10');
  t.is(h['x-ratelimit-remaining'], '0');
  t.is(retryAfterSeconds(refused.views), 6);
  t.regex(h.ratelimit, /"scan-create";r=0;t=6$/);
  await store.close();
});

test('full buckets are forgotten by the sweep; partly used ones are kept', async (t) => {
  const { clock, store } = clocked();
  await store.take([standard], 1);
  await store.take([scanCreate], 1);
  t.is(store.size, 2);
  clock.now = T0 + 1_000 + 600; // standard full again after 600 ms (+1 s margin), scan-create not
  store.sweep();
  t.is(store.size, 1);
  await store.close();
});

test('memory slots: at most max, release frees at once, release twice is harmless', async (t) => {
  const { store } = clocked();
  for (let i = 0; i < 5; i++) t.true((await store.acquireSlot('s:x', `m${i}`, 5)).acquired);
  t.deepEqual(await store.acquireSlot('s:x', 'm5', 5), { acquired: false, inUse: 5 });
  await store.releaseSlot('s:x', 'm0');
  await store.releaseSlot('s:x', 'm0');
  t.true((await store.acquireSlot('s:x', 'm5', 5)).acquired);
  t.false((await store.acquireSlot('s:x', 'm6', 5)).acquired);
  await store.close();
});
