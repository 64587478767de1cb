import test from 'ava';
import { approvalRepository } from '../../../core/approvals/approval-repository.ts';
import { RampartError } from '../../../core/errors.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { approvalFixture, newRequest, RETRY_MS, principal, type ApprovalFixture } from './approval-fixture.ts';

let t0: TestApp;
let f: ApprovalFixture;
let tenantId: string;

test.before(async () => {
  t0 = await createTestApp();
  f = approvalFixture(t0);
  tenantId = (await t0.tenant()).tenantId;
});
test.after.always(async () => {
  await t0?.close();
});

const N = 8;

// On MariaDB the decisions run on separate pooled connections at the same time; on SQLite they interleave on its one writer.
test.serial(`${N} people approving at once with a quorum of ${N - 1}: exactly one resolution, one handler call, consistent rows`, async (t) => {
  for (let round = 0; round < 5; round++) {
    const req = await f.service.request(newRequest(tenantId, principal(tenantId), { requiredApprovals: N - 1 }));
    const results = await Promise.allSettled(Array.from({ length: N }, () => f.service.decide(principal(tenantId), req.id, 'approve')));
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    t.is(ok.length, N - 1, `round ${round}`);
    t.deepEqual(refused.map((r) => [(r.reason as RampartError).code, (r.reason as RampartError).extra?.approval_status]), [['approval_resolved', 'approved']]);
    t.deepEqual(f.calls.get(req.id), ['approved']);
    const row = await t0.ctx.db('approval_requests').where({ id: req.id }).first();
    t.like(row, { status: 'approved', resolved_by: 'decision', locked_by: null, due_at: null });
    t.not(row.resolution_handled_at, null);
    t.is((await t0.ctx.db('approval_decisions').where({ request_id: req.id })).length, N - 1);
  }
});

test.serial('approvals and a deny racing on the last approval: one resolution, and the status matches the decisions that were accepted', async (t) => {
  for (let round = 0; round < 5; round++) {
    const req = await f.service.request(newRequest(tenantId, principal(tenantId), { requiredApprovals: 2 }));
    const first = principal(tenantId);
    await f.service.decide(first, req.id, 'approve');
    const racers = [principal(tenantId), principal(tenantId), principal(tenantId)];
    const results = await Promise.allSettled(racers.map((p, i) => f.service.decide(p, req.id, i === 1 ? 'deny' : 'approve')));
    const accepted = results.filter((r) => r.status === 'fulfilled').length;
    t.is(accepted, 1, `round ${round}: only the first decision after the first approval counts`);
    const final = await f.service.get(tenantId, req.id);
    t.true(final.status === 'approved' || final.status === 'denied');
    t.is(final.decisions.length, 2);
    // Two decisions in one millisecond are listed in id order, not arrival order: find the racer's by who made it.
    const winner = final.decisions.find((d) => d.deciderTokenId !== first.tokenId)!;
    t.is(winner.decision === 'deny' ? 'denied' : 'approved', final.status);
    t.deepEqual(f.calls.get(req.id), [final.status]);
  }
});

test.serial('a decision racing the sweeper\'s expiry: exactly one resolution', async (t) => {
  for (let round = 0; round < 5; round++) {
    const req = await f.service.request(newRequest(tenantId, principal(tenantId), { expiresInSeconds: 5, onExpiry: 'deny' }));
    // The clock is exactly at expiry for both: the decision must lose or win, never both.
    f.clock.now += 5_000;
    const [decided] = await Promise.allSettled([f.service.decide(principal(tenantId), req.id, 'approve'), f.sweeper.runOnce()]);
    const final = await f.service.get(tenantId, req.id);
    t.is(final.status, 'denied');
    t.is(final.resolvedBy, 'expiry');
    t.is(decided.status, 'rejected');
    t.deepEqual(f.calls.get(req.id), ['denied']);
  }
});

test.serial('a decision that resolves the request after the sweeper claimed it: the sweeper leaves the handler to the decider\'s lease', async (t) => {
  const req = await f.service.request(newRequest(tenantId, principal(tenantId), { expiresInSeconds: 5, onExpiry: 'deny' }));
  f.clock.now += 5_000;
  // The decider's handler call fails, so the resolution stays unhandled while the sweeper looks at it.
  f.failures.set(req.id, 1);
  // Runs the racing decision exactly between the sweeper's claim and its read of the row.
  const find = approvalRepository.find;
  let raced = false;
  approvalRepository.find = async (...args: Parameters<typeof find>) => {
    if (args[1] === null && args[2] === req.id && !raced) {
      raced = true;
      await t.throwsAsync(f.service.decide(principal(tenantId), req.id, 'approve'), { message: /already denied/ });
    }
    return find(...args);
  };
  try {
    await f.sweeper.runOnce();
  } finally {
    approvalRepository.find = find;
  }
  t.true(raced);
  t.deepEqual(f.calls.get(req.id), ['denied'], 'only the decider called the handler');
  t.like(await t0.ctx.db('approval_requests').where({ id: req.id }).first(), { status: 'denied', resolved_by: 'expiry', due_at: f.clock.now + RETRY_MS });
  // The failed call is retried by the sweeper once its retry is due, and only then.
  f.clock.now += RETRY_MS;
  await f.sweeper.runOnce();
  t.deepEqual(f.calls.get(req.id), ['denied', 'denied']);
  t.like(await t0.ctx.db('approval_requests').where({ id: req.id }).first(), { due_at: null });
});
