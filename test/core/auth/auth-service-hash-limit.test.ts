import { createHash } from 'node:crypto';
import test from 'ava';
import { AuthService } from '../../../core/auth/auth-service.ts';
import { ServerBusyError } from '../../../core/auth/hash-gate.ts';
import { PasswordHasher, type DeriveKey } from '../../../core/auth/password-hasher.ts';
import { UnauthorizedError } from '../../../core/errors.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(async () => t0?.close());

/** A key derivation that holds every call until the test lets it go, counting how many run at once. */
function heldDerive() {
  const state = { hold: false, running: 0, peak: 0, calls: 0, waiting: [] as Array<() => void> };
  const derive: DeriveKey = async (password, salt) => {
    state.calls++;
    state.running++;
    state.peak = Math.max(state.peak, state.running);
    if (state.hold) await new Promise<void>((resolve) => state.waiting.push(resolve));
    state.running--;
    return createHash('sha256').update(password).update(salt).digest();
  };
  return { derive, state };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('20 parallel logins for unknown emails: at most 4 hashes at once, 4 wait, the rest get 503 server_busy', async (t) => {
  const { derive, state } = heldDerive();
  const passwords = new PasswordHasher({ scrypt: t0.config.auth.scrypt, maxConcurrentHashes: 4, maxQueuedHashes: 4 }, derive);
  const auth = new AuthService(t0.ctx.db, t0.ctx.services.admin, passwords, 3600);
  // The first unknown email makes the dummy hash (one derivation) and verifies against it (a second).
  await t.throwsAsync(auth.login('first-nobody@example.com', 'x'), { instanceOf: UnauthorizedError });
  t.is(state.calls, 2);

  state.hold = true;
  let settled = 0;
  const outcomes = Array.from({ length: 20 }, (_, i) =>
    auth.login(`nobody-${i}@example.com`, 'guess').then(
      () => 'logged in',
      (err: unknown) => err,
    ).finally(() => settled++),
  );
  // Every login has either entered the gate (4 hashing, 4 queued) or been refused.
  for (let spins = 0; settled < 12 && spins < 100_000; spins++) await turn();
  t.is(settled, 12);
  t.is(state.running, 4);
  t.is(passwords.gate.queued, 4);
  while (settled < 20) {
    for (const release of state.waiting.splice(0)) release();
    await turn();
  }
  const results = await Promise.all(outcomes);
  t.is(results.filter((r) => r instanceof ServerBusyError).length, 12);
  t.is(results.filter((r) => r instanceof UnauthorizedError).length, 8, 'the admitted ones still verify (against the dummy hash) and get 401');
  t.is(state.peak, 4);
  t.is(state.calls, 2 + 8, 'one derivation per admitted login: the timing-equalising dummy hash is kept');
  const busy = results.find((r) => r instanceof ServerBusyError) as ServerBusyError;
  t.is(busy.statusCode, 503);
  t.is(busy.code, 'server_busy');
  t.true(Number(busy.extra.retry_after) >= 1);
});

test('a refused dummy hash is not remembered: the next login makes it again', async (t) => {
  const { derive, state } = heldDerive();
  const passwords = new PasswordHasher({ scrypt: t0.config.auth.scrypt, maxConcurrentHashes: 1, maxQueuedHashes: 0 }, derive);
  const auth = new AuthService(t0.ctx.db, t0.ctx.services.admin, passwords, 3600);
  state.hold = true;
  const blocker = passwords.gate.run(() => new Promise<void>((resolve) => state.waiting.push(resolve)));
  await t.throwsAsync(auth.login('nobody@example.com', 'x'), { instanceOf: ServerBusyError });
  for (const release of state.waiting.splice(0)) release();
  await blocker;
  state.hold = false;
  await t.throwsAsync(auth.login('nobody@example.com', 'x'), { instanceOf: UnauthorizedError });
});
