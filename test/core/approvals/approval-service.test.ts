import test from 'ava';
import { RampartError } from '../../../core/errors.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { approvalFixture, LEASE_MS, newRequest, principal, RETRY_MS, type ApprovalFixture } from './approval-fixture.ts';

// One service, one clock that only moves forward, serial tests: the hand-driven sweeper sees every test's rows.
let t0: TestApp;
let f: ApprovalFixture;
let tenantId: string;
let otherTenantId: string;

test.before(async () => {
  t0 = await createTestApp();
  f = approvalFixture(t0);
  tenantId = (await t0.tenant()).tenantId;
  otherTenantId = (await t0.tenant()).tenantId;
});
test.after.always(async () => {
  await t0?.close();
});

async function rejects(t: any, work: Promise<unknown>, status: number, code: string): Promise<void> {
  const err = await t.throwsAsync(work);
  t.true(err instanceof RampartError, String(err));
  t.is((err as RampartError).statusCode, status);
  t.is((err as RampartError).code, code);
}

const decisionRows = (requestId: string) => t0.ctx.db('approval_decisions').where({ request_id: requestId });

test.serial('a quorum of distinct approvers resolves the request approved, and the handler runs once', async (t) => {
  const requester = principal(tenantId);
  const req = await f.service.request(newRequest(tenantId, requester, { requiredApprovals: 2 }));
  t.is(req.status, 'pending');
  t.regex(req.id, /^apr_/);
  const a = principal(tenantId);
  f.clock.now += 1000;
  const first = await f.service.decide(a, req.id, 'approve', 'looks right');
  t.is(first.status, 'pending');
  t.is(first.updatedAt, f.clock.now);
  t.is(f.callsOf(req.id), 0);
  f.clock.now += 1000;
  const b = principal(tenantId);
  const second = await f.service.decide(b, req.id, 'approve');
  t.is(second.status, 'approved');
  t.is(second.resolvedBy, 'decision');
  t.is(second.resolvedAt, f.clock.now);
  t.not(second.resolutionHandledAt, null);
  t.deepEqual(f.calls.get(req.id), ['approved']);
  t.deepEqual(second.decisions.map((d) => [d.decision, d.comment, d.deciderUserId, d.deciderTokenId]), [
    ['approve', 'looks right', a.userId, a.tokenId],
    ['approve', null, b.userId, b.tokenId],
  ]);
  await rejects(t, f.service.decide(principal(tenantId), req.id, 'approve'), 409, 'approval_resolved');
  t.is((await decisionRows(req.id)).length, 2);
  t.is(await f.sweeper.runOnce(), 0);
  t.is(f.callsOf(req.id), 1);
});

test.serial('the requester cannot decide: same user through another token, or the same token without a user', async (t) => {
  const requester = principal(tenantId);
  const req = await f.service.request(newRequest(tenantId, requester));
  await rejects(t, f.service.decide({ ...requester, tokenId: 'tok_other' }, req.id, 'approve'), 403, 'self_approval');
  await rejects(t, f.service.decide(requester, req.id, 'deny'), 403, 'self_approval');
  const bot = principal(tenantId, { user: false });
  const byBot = await f.service.request(newRequest(tenantId, bot));
  await rejects(t, f.service.decide(bot, byBot.id, 'approve'), 403, 'self_approval');
  // A system request (no token) bars nobody.
  const system = await f.service.request(newRequest(tenantId, null));
  t.is((await f.service.decide(bot, system.id, 'approve')).status, 'approved');
  t.is((await decisionRows(req.id)).length, 0);
});

test.serial('allowed lists: a listed scope or a listed user may decide, anyone else is 403 and writes nothing', async (t) => {
  const boss = principal(tenantId, { scope: ['playbooks:run'] });
  const byScope = await f.service.request(newRequest(tenantId, principal(tenantId), { allowed: { scopes: ['playbooks:run', 'admin'] } }));
  await rejects(t, f.service.decide(principal(tenantId, { scope: ['actions:execute'] }), byScope.id, 'approve'), 403, 'not_allowed_to_decide');
  t.is((await f.service.decide(boss, byScope.id, 'approve')).status, 'approved');

  const named = principal(tenantId);
  const byUser = await f.service.request(newRequest(tenantId, principal(tenantId), { allowed: { user_ids: [named.userId!] } }));
  await rejects(t, f.service.decide(principal(tenantId), byUser.id, 'approve'), 403, 'not_allowed_to_decide');
  await rejects(t, f.service.decide(principal(tenantId, { user: false }), byUser.id, 'approve'), 403, 'not_allowed_to_decide');
  t.is((await decisionRows(byUser.id)).length, 0);
  t.is((await f.service.decide({ ...named, tokenId: 'tok_any' }, byUser.id, 'approve')).status, 'approved');
});

test.serial('the same person deciding twice is 409 already_decided, also through another token', async (t) => {
  const req = await f.service.request(newRequest(tenantId, principal(tenantId), { requiredApprovals: 3 }));
  const a = principal(tenantId);
  await f.service.decide(a, req.id, 'approve');
  await rejects(t, f.service.decide(a, req.id, 'approve'), 409, 'already_decided');
  await rejects(t, f.service.decide({ ...a, tokenId: 'tok_second' }, req.id, 'deny'), 409, 'already_decided');
  const bot = principal(tenantId, { user: false });
  await f.service.decide(bot, req.id, 'approve');
  await rejects(t, f.service.decide(bot, req.id, 'approve'), 409, 'already_decided');
  const now = await f.service.get(tenantId, req.id);
  t.is(now.status, 'pending');
  t.is(now.decisions.length, 2);
});

test.serial('one deny resolves at once, whatever the quorum', async (t) => {
  const req = await f.service.request(newRequest(tenantId, principal(tenantId), { requiredApprovals: 3 }));
  await f.service.decide(principal(tenantId), req.id, 'approve');
  const denied = await f.service.decide(principal(tenantId), req.id, 'deny', 'not during business hours');
  t.is(denied.status, 'denied');
  t.is(denied.resolvedBy, 'decision');
  t.deepEqual(f.calls.get(req.id), ['denied']);
});

test.serial('expiry resolves by on_expiry (fail, approve, deny) once the clock passes expires_at, each handler once', async (t) => {
  const requester = principal(tenantId);
  const fail = await f.service.request(newRequest(tenantId, requester, { expiresInSeconds: 60, onExpiry: 'fail' }));
  const approve = await f.service.request(newRequest(tenantId, requester, { expiresInSeconds: 60, onExpiry: 'approve', subject: { kind: 'playbook_run', id: 'pbx_1' } }));
  const deny = await f.service.request(newRequest(tenantId, requester, { expiresInSeconds: 60, onExpiry: 'deny' }));
  f.clock.now += 59_000;
  await f.sweeper.runOnce();
  t.is((await f.service.get(tenantId, fail.id)).status, 'pending');
  f.clock.now += 1_000;
  await f.sweeper.runOnce();
  const got = await Promise.all([fail, approve, deny].map((r) => f.service.get(tenantId, r.id)));
  t.deepEqual(got.map((r) => [r.status, r.resolvedBy, r.resolvedAt]), [
    ['expired', 'expiry', f.clock.now], ['approved', 'expiry', f.clock.now], ['denied', 'expiry', f.clock.now],
  ]);
  t.true(got.every((r) => r.resolutionHandledAt !== null));
  t.deepEqual([fail, approve, deny].map((r) => f.calls.get(r.id)), [['expired'], ['approved'], ['denied']]);
  f.clock.now += LEASE_MS * 2;
  await f.sweeper.runOnce();
  t.deepEqual([fail, approve, deny].map((r) => f.callsOf(r.id)), [1, 1, 1]);
});

test.serial('a decision arriving after expires_at but before the sweep is 409; the request resolves by expiry', async (t) => {
  const req = await f.service.request(newRequest(tenantId, principal(tenantId), { expiresInSeconds: 10, onExpiry: 'fail' }));
  f.clock.now += 10_000;
  const err = await t.throwsAsync(f.service.decide(principal(tenantId), req.id, 'approve'));
  t.is((err as RampartError).code, 'approval_resolved');
  t.is((err as RampartError).extra.approval_status, 'expired');
  t.is((await decisionRows(req.id)).length, 0);
  t.deepEqual(f.calls.get(req.id), ['expired']);
  await f.sweeper.runOnce();
  t.is(f.callsOf(req.id), 1);
});

test.serial('a failing handler is retried by the sweeper after the retry delay, then marked handled', async (t) => {
  const req = await f.service.request(newRequest(tenantId, principal(tenantId)));
  f.failures.set(req.id, 1);
  const decided = await f.service.decide(principal(tenantId), req.id, 'approve');
  t.is(decided.status, 'approved');
  t.is(decided.resolutionHandledAt, null);
  t.is(f.callsOf(req.id), 1);
  f.clock.now += RETRY_MS - 1;
  await f.sweeper.runOnce();
  t.is(f.callsOf(req.id), 1);
  f.clock.now += 1;
  await f.sweeper.runOnce();
  t.is(f.callsOf(req.id), 2);
  t.not((await f.service.get(tenantId, req.id)).resolutionHandledAt, null);
  f.clock.now += LEASE_MS * 2;
  await f.sweeper.runOnce();
  t.is(f.callsOf(req.id), 2);
});

test.serial('a crash between resolution and handler: re-driven once the dead lease lapses, not before', async (t) => {
  const req = await f.service.request(newRequest(tenantId, principal(tenantId)));
  // What a process that died right after committing the approval leaves behind.
  await t0.ctx.db('approval_requests').where({ id: req.id }).update({
    status: 'approved', resolved_by: 'decision', resolved_at: f.clock.now, due_at: f.clock.now, locked_by: 'dead-process#1', locked_until: f.clock.now + LEASE_MS,
  });
  await f.sweeper.runOnce();
  t.is(f.callsOf(req.id), 0);
  f.clock.now += LEASE_MS + 1;
  await f.sweeper.runOnce();
  t.deepEqual(f.calls.get(req.id), ['approved']);
  const row = await t0.ctx.db('approval_requests').where({ id: req.id }).first();
  t.not(row.resolution_handled_at, null);
  t.is(row.due_at, null);
  t.is(row.locked_by, null);
});

test.serial('cancel: a pending request becomes cancelled with its reason (handler called); a resolved one is left alone', async (t) => {
  const req = await f.service.request(newRequest(tenantId, principal(tenantId)));
  const out = await f.service.cancel(tenantId, req.id, 'execution cancelled by user');
  t.true(out.cancelled);
  t.like(out.request, { status: 'cancelled', resolvedBy: 'cancel', cancelReason: 'execution cancelled by user' });
  t.deepEqual(f.calls.get(req.id), ['cancelled']);
  const again = await f.service.cancel(tenantId, req.id, 'twice');
  t.false(again.cancelled);
  t.is(again.request.cancelReason, 'execution cancelled by user');
  await rejects(t, f.service.decide(principal(tenantId), req.id, 'approve'), 409, 'approval_resolved');
  await rejects(t, f.service.cancel(otherTenantId, req.id, 'x'), 404, 'not_found');
});

test.serial('another tenant\'s request is 404 for reads, decisions and cancels', async (t) => {
  const req = await f.service.request(newRequest(tenantId, principal(tenantId)));
  await rejects(t, f.service.get(otherTenantId, req.id), 404, 'not_found');
  await rejects(t, f.service.decide(principal(otherTenantId), req.id, 'approve'), 404, 'not_found');
  await rejects(t, f.service.get(tenantId, 'apr_01JD3000000000000000000000'), 404, 'not_found');
  t.is((await f.service.list(otherTenantId, {}, { page: 1, perPage: 100 })).rows.filter((r) => r.id === req.id).length, 0);
  t.is((await decisionRows(req.id)).length, 0);
});

test.serial('request() joins the caller\'s transaction: rolled back with it', async (t) => {
  const input = newRequest(tenantId, principal(tenantId));
  let id = '';
  await t.throwsAsync(t0.ctx.db.transaction(async (trx) => {
    id = (await f.service.request(input, trx)).id;
    t.truthy(await trx('approval_requests').where({ id }).first());
    throw new Error('the caller failed');
  }));
  t.is(await t0.ctx.db('approval_requests').where({ id }).first(), undefined);
});

test.serial('bad request input is 400 with a detail per field and writes nothing', async (t) => {
  const before = (await t0.ctx.db('approval_requests').count({ n: '*' }).first()) as { n: number };
  const bad = newRequest(tenantId, principal(tenantId), {
    requiredApprovals: 11, expiresInSeconds: 0, onExpiry: 'later' as never, message: '', subject: { kind: 'Bad Kind', id: '' },
    allowed: { scopes: ['nope'], user_ids: ['usr_x'] }, details: { big: 'x'.repeat(20_000) },
  });
  const err = (await t.throwsAsync(f.service.request(bad))) as RampartError;
  t.is(err.statusCode, 400);
  t.is(err.code, 'validation_failed');
  const fields = (err.extra.details as Array<{ field: string }>).map((d) => d.field).sort();
  t.deepEqual(fields, ['allowed.scopes.0', 'allowed.user_ids.0', 'details', 'expires_in_seconds', 'message', 'on_expiry', 'required_approvals', 'subject.id', 'subject.kind']);
  // A quorum that the named users cannot reach (the requester does not count).
  const requester = principal(tenantId);
  const unreachable = (await t.throwsAsync(f.service.request(newRequest(tenantId, requester, { requiredApprovals: 2, allowed: { user_ids: [requester.userId!, principal(tenantId).userId!] } })))) as RampartError;
  t.deepEqual((unreachable.extra.details as Array<{ field: string }>).map((d) => d.field), ['allowed.user_ids']);
  await rejects(t, f.service.decide(principal(tenantId), 'apr_01JD3000000000000000000000', 'approve', 'x'.repeat(2001)), 400, 'validation_failed');
  const after = (await t0.ctx.db('approval_requests').count({ n: '*' }).first()) as { n: number };
  t.is(Number(after.n), Number(before.n));
});

test.serial('list filters by status and subject, newest first, with decisions', async (t) => {
  const tenant = (await t0.tenant()).tenantId;
  const a = await f.service.request(newRequest(tenant, principal(tenant)));
  f.clock.now += 1;
  const b = await f.service.request(newRequest(tenant, principal(tenant), { subject: { kind: 'playbook_run', id: 'pbx_9' } }));
  f.clock.now += 1;
  await f.service.decide(principal(tenant), a.id, 'approve', 'ok');
  const all = await f.service.list(tenant, {}, { page: 1, perPage: 10 });
  t.deepEqual(all.rows.map((r) => r.id), [b.id, a.id]);
  t.is(all.total, 2);
  t.deepEqual((await f.service.list(tenant, { status: 'pending' }, { page: 1, perPage: 10 })).rows.map((r) => r.id), [b.id]);
  t.deepEqual((await f.service.list(tenant, { subjectKind: 'playbook_run', subjectId: 'pbx_9' }, { page: 1, perPage: 10 })).rows.map((r) => r.id), [b.id]);
  const approved = (await f.service.list(tenant, { status: 'approved' }, { page: 1, perPage: 10 })).rows;
  t.deepEqual(approved.map((r) => r.decisions.map((d) => d.comment)), [['ok']]);
});
