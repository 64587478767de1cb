import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
test.before(async () => {
  // One hash at a time and no queue, so one held hash makes the server busy.
  t0 = await createTestApp({ auth: { maxConcurrentHashes: 1, maxQueuedHashes: 0 } });
});
test.after.always(async () => t0?.close());

const login = (email: string) => t0.request('POST', '/api/user/auth/login', { token: null, payload: { email, password: 'Winter2026!' } });

test('logins beyond the hash limit answer 503 server_busy with Retry-After, in the one error shape', async (t) => {
  let release!: () => void;
  const held = t0.ctx.services.auth.passwords.gate.run(() => new Promise<void>((resolve) => (release = resolve)));
  const busy = await Promise.all(Array.from({ length: 20 }, (_, i) => login(`nobody-${i}@example.com`)));
  t.deepEqual(busy.map((r) => r.statusCode), Array(20).fill(503));
  const [first] = busy;
  t.deepEqual(Object.keys(first!.body), ['status', 'error']);
  t.is(first!.body.error.code, 'server_busy');
  t.is(first!.headers['retry-after'], String(first!.body.error.retry_after));
  t.true(first!.body.error.retry_after >= 1);
  t.truthy(first!.headers['x-ratelimit-limit'], 'the rate-limit headers are there as on any response');
  t.is(t0.ctx.services.auth.passwords.gate.active, 1, 'no request got a hash of its own');
  release();
  await held;
  t.is((await login('nobody@example.com')).statusCode, 401, 'once the hash is done, logins are answered again');
});
