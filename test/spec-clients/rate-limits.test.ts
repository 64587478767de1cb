import test from 'ava';
import { DEFAULT_RATE_LIMITS } from '../_helpers/harness/rate-limit-config.ts';
import { createTestApp, type TestApp } from '../_helpers/harness/test-app.ts';
import { specFields } from '../_helpers/spec-clients/spec-fields.ts';

// Rate limits as a spec-only client meets them, with the production tier table: the
// X-RateLimit-* headers on every response, health exempt, and the spec's 429 body.
let t0: TestApp;
const clock = { now: Date.parse('2026-01-01T00:00:00Z') };
test.before(async () => {
  t0 = await createTestApp({ rateLimit: DEFAULT_RATE_LIMITS }, { rateLimitClock: () => clock.now });
});
test.after.always(async () => t0?.close());

test('headers on every response; a Standard tenant gets 429 with the spec\'s body and Retry-After after its burst; health is exempt', async (t) => {
  const { token } = await t0.tenant({ tier: 'standard' });
  const first = await t0.request('GET', '/api/assets', { token });
  t.is(first.statusCode, 200);
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) t.regex(String(first.headers[h]), /^\d+$/, h);
  let last = first;
  for (let i = 0; i < 200 && last.statusCode !== 429; i++) last = await t0.request('GET', '/api/assets', { token });
  t.is(last.statusCode, 429);
  t.is(last.body.status, 'error');
  t.is(last.body.error.code, 'rate_limited');
  specFields(t, last.body.error, { code: 'string', message: 'string', retry_after: 'integer' }, '429 error');
  t.regex(String(last.headers['retry-after']), /^\d+$/);
  t.is(last.headers['x-ratelimit-remaining'], '0');
  const health = await t0.request('GET', '/api/health', { token });
  t.is(health.statusCode, 200, 'health is exempt');
  clock.now += 60_000;
  t.is((await t0.request('GET', '/api/assets', { token })).statusCode, 200, 'tokens refill at the per-minute rate');
});
