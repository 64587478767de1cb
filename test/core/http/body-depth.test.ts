import test from 'ava';
import { bodyDeeperThan, MAX_BODY_DEPTH } from '../../../core/http/body-depth.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

/** An array nested `levels` deep, built without recursion (the body itself is level 1). */
function nested(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

test('bodyDeeperThan counts the body as level 1 and walks a million levels without overflowing', (t) => {
  t.false(bodyDeeperThan(nested(MAX_BODY_DEPTH), MAX_BODY_DEPTH));
  t.true(bodyDeeperThan(nested(MAX_BODY_DEPTH + 1), MAX_BODY_DEPTH));
  t.true(bodyDeeperThan(nested(1_000_000), MAX_BODY_DEPTH));
  t.false(bodyDeeperThan({ a: 1, b: 'x', c: null }, 1));
  // Wide is not deep: 100,000 siblings at level 2.
  t.false(bodyDeeperThan({ items: Array.from({ length: 100_000 }, (_, i) => i) }, 2));
  // The deep branch is found wherever it sits among shallow ones.
  t.true(bodyDeeperThan({ a: [1, 2], b: { c: nested(MAX_BODY_DEPTH - 1) }, d: 'x' }, MAX_BODY_DEPTH));
});

let t0: TestApp;
test.before(async () => {
  t0 = await createTestApp();
});
test.after.always(async () => t0?.close());

test('a too-deep body without a token is still a 401: authentication comes first', async (t) => {
  const res = await t0.server.inject({ method: 'POST', url: '/api/assets', headers: { 'content-type': 'application/json' }, payload: `{"metadata":${'['.repeat(10_000)}${']'.repeat(10_000)}}` });
  t.is(res.statusCode, 401, res.payload.slice(0, 200));
});
