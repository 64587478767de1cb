// Issue 25, item 9: unknown agent tokens are charged to the client address like unknown
// API tokens (300 × 401 never met a 429), and one agent holds a bounded number of long polls.
import test from 'ava';
import { MAX_WAITING_POLLS } from '../../../core/agents/agent-service.ts';
import { DEFAULT_RATE_LIMITS } from '../../_helpers/harness/rate-limit-config.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp({ rateLimit: DEFAULT_RATE_LIMITS });
});
test.after.always(async () => {
  await t0?.close();
});

test('unknown agent tokens meet a 429 once the address has spent its anonymous burst', async (t) => {
  const codes: number[] = [];
  for (let i = 0; i < 60; i++) {
    const res = await t0.server.inject({ method: 'POST', url: '/api/agent/jobs/claim', headers: { authorization: `Bearer rmpa_unknown${i}` }, payload: { wait_seconds: 0 } });
    codes.push(res.statusCode);
  }
  t.true(codes.slice(0, 5).every((c) => c === 401), codes.join(','));
  const limited = codes.filter((c) => c === 429).length;
  t.true(limited > 0, `no 429 in ${codes.length} refused agent tokens`);
  t.true(codes.lastIndexOf(401) < codes.indexOf(429) || limited > 30, 'once limited, the address stays limited within the minute');
});

test(`one agent holds at most ${MAX_WAITING_POLLS} waiting long polls; the next is a 429 and the first ones still answer`, async (t) => {
  const { token } = await t0.tenant();
  const agent = await t0.request('POST', '/api/agents', { token, payload: { name: 'poller', labels: ['p'] } });
  t.is(agent.statusCode, 201, agent.raw);
  const poll = () => t0.server.inject({ method: 'POST', url: '/api/agent/jobs/claim', headers: { authorization: `Bearer ${agent.body.data.token}` }, payload: { wait_seconds: 2 } });
  const waiting = Array.from({ length: MAX_WAITING_POLLS }, () => poll());
  await new Promise((r) => setTimeout(r, 300));
  const extra = await poll();
  t.is(extra.statusCode, 429, extra.payload);
  t.is(JSON.parse(extra.payload).error.code, 'rate_limited');
  t.deepEqual((await Promise.all(waiting)).map((r) => r.statusCode), Array(MAX_WAITING_POLLS).fill(204));
  t.is((await poll()).statusCode, 204, 'a slot is free again once the polls answered');
});
