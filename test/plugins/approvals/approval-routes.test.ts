import test from 'ava';
import type { NewApprovalRequest } from '../../../core/approvals/approval-types.ts';
import type { Scope } from '../../../core/domain/scopes.ts';
import { newId } from '../../../core/ids.ts';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
let seq = 0;

test.before(async () => {
  t0 = await createTestApp();
  // A subject kind of this test's own (the action engine owns action_execution): the handler records what resolved.
  t0.ctx.services.approvals.onResolved('route_test', async (r) => void handled.push(`${r.id}:${r.status}`));
});
test.after.always(async () => {
  await t0?.close();
});

const handled: string[] = [];

interface Person { token: string; tokenId: string; userId: string | null }

/** A token of a (new) user of the tenant, or a bare token when `user` is false. */
async function person(tenantId: string, scopes: Scope[], user = true): Promise<Person> {
  const admin = t0.ctx.services.admin;
  seq += 1;
  const u = user ? await admin.createUser(tenantId, { email: `approver-${process.pid}-${seq}@example.com`, name: `Approver ${seq}`, password: 'a long enough passphrase', scopes }) : null;
  const issued = await admin.createToken(tenantId, { name: `p${seq}`, scopes, expiresAt: null, userId: u?.id ?? null });
  return { token: issued.token, tokenId: issued.record.id, userId: u?.id ?? null };
}

async function open(tenantId: string, requester: Person, o: Partial<NewApprovalRequest> = {}) {
  return t0.ctx.services.approvals.request({
    tenantId, subject: { kind: 'route_test', id: newId('exe') }, message: 'Run block-ip on 203.0.113.9?', details: { ip: '203.0.113.9' },
    requiredApprovals: 1, expiresInSeconds: 3600, onExpiry: 'fail', requestedBy: { userId: requester.userId, tokenId: requester.tokenId }, ...o,
  });
}

test('the view: every field, decisions with who and when, and the approve route resolving the quorum', async (t) => {
  const { tenantId } = await t0.tenant();
  const requester = await person(tenantId, ['actions:execute', 'actions:read']);
  const [ana, bo] = [await person(tenantId, ['actions:execute']), await person(tenantId, ['playbooks:run'])];
  const req = await open(tenantId, requester, { requiredApprovals: 2, allowed: { scopes: ['actions:execute', 'playbooks:run'] } });
  const first = await t0.request('POST', `/api/approvals/${req.id}/approve`, { token: ana.token, payload: { comment: 'checked the asset' } });
  t.is(first.statusCode, 200, first.raw);
  t.like(first.body.data, {
    id: req.id, status: 'pending', subject: { kind: 'route_test', id: req.subject.id }, message: 'Run block-ip on 203.0.113.9?',
    details: { ip: '203.0.113.9' }, required_approvals: 2, approvals_count: 1, allowed: { scopes: ['actions:execute', 'playbooks:run'] },
    requested_by: { user_id: requester.userId, token_id: requester.tokenId }, on_expiry: 'fail', resolved_at: null, resolved_by: null,
  });
  t.deepEqual(first.body.data.decisions.map((d: any) => [d.decision, d.comment, d.decided_by]), [['approve', 'checked the asset', { user_id: ana.userId, token_id: ana.tokenId }]]);
  t.truthy(Date.parse(first.body.data.decisions[0].decided_at));
  t.is(first.body.data.expires_at, new Date(req.expiresAt).toISOString());
  const second = await t0.request('POST', `/api/approvals/${req.id}/approve`, { token: bo.token, payload: null });
  t.is(second.statusCode, 200, second.raw);
  t.like(second.body.data, { status: 'approved', approvals_count: 2, resolved_by: 'decision' });
  t.truthy(Date.parse(second.body.data.resolved_at));
  t.true(handled.includes(`${req.id}:approved`));
  const got = await t0.request('GET', `/api/approvals/${req.id}`, { token: requester.token });
  t.deepEqual(got.body.data, second.body.data);
  const late = await t0.request('POST', `/api/approvals/${req.id}/deny`, { token: (await person(tenantId, ['actions:execute'])).token });
  t.is(late.statusCode, 409);
  t.like(late.body.error, { code: 'approval_resolved', approval_status: 'approved' });
});

test('deny resolves at once; the requester, a second decision and an outsider are refused in the error shape', async (t) => {
  const { tenantId } = await t0.tenant();
  const requester = await person(tenantId, ['actions:execute']);
  const named = await person(tenantId, ['actions:execute']);
  const req = await open(tenantId, requester, { requiredApprovals: 1, allowed: { user_ids: [named.userId!] } });
  const self = await t0.request('POST', `/api/approvals/${req.id}/approve`, { token: requester.token, payload: {} });
  t.is(self.statusCode, 403);
  t.is(self.body.status, 'error');
  t.is(self.body.error.code, 'not_allowed_to_decide');
  const outsider = await t0.request('POST', `/api/approvals/${req.id}/deny`, { token: (await person(tenantId, ['actions:execute'])).token });
  t.is(outsider.body.error.code, 'not_allowed_to_decide');

  const open2 = await open(tenantId, requester, { requiredApprovals: 2 });
  t.is((await t0.request('POST', `/api/approvals/${open2.id}/approve`, { token: requester.token })).body.error.code, 'self_approval');
  t.is((await t0.request('POST', `/api/approvals/${open2.id}/approve`, { token: named.token })).statusCode, 200);
  const twice = await t0.request('POST', `/api/approvals/${open2.id}/deny`, { token: named.token });
  t.is(twice.statusCode, 409);
  t.is(twice.body.error.code, 'already_decided');
  const deny = await t0.request('POST', `/api/approvals/${open2.id}/deny`, { token: (await person(tenantId, ['actions:execute'], false)).token, payload: { comment: 'wrong host' } });
  t.is(deny.statusCode, 200);
  t.like(deny.body.data, { status: 'denied', approvals_count: 1 });
  t.is(deny.body.data.decisions[1].decided_by.user_id, null);
  t.is((await t0.ctx.db('approval_decisions').where({ request_id: req.id })).length, 0);
});

test('scopes: read with actions:read or playbooks:read, decide with actions:execute or playbooks:run', async (t) => {
  const { tenantId } = await t0.tenant();
  const requester = await person(tenantId, ['actions:execute'], false);
  const req = await open(tenantId, requester);
  for (const scope of ['actions:read', 'playbooks:read'] as Scope[]) {
    const token = (await person(tenantId, [scope], false)).token;
    t.is((await t0.request('GET', `/api/approvals/${req.id}`, { token })).statusCode, 200, scope);
    t.is((await t0.request('GET', '/api/approvals', { token })).statusCode, 200, scope);
    const refused = await t0.request('POST', `/api/approvals/${req.id}/approve`, { token });
    t.is(refused.statusCode, 403);
    t.is(refused.body.error.code, 'insufficient_scope');
    t.deepEqual(refused.body.error.required_scopes.sort(), ['actions:execute', 'playbooks:run']);
  }
  const writer = (await person(tenantId, ['actions:write', 'findings:read'], false)).token;
  const noRead = await t0.request('GET', '/api/approvals', { token: writer });
  t.is(noRead.statusCode, 403);
  t.deepEqual(noRead.body.error.required_scopes.sort(), ['actions:read', 'playbooks:read']);
  const runner = (await person(tenantId, ['playbooks:run'], false)).token;
  t.is((await t0.request('POST', `/api/approvals/${req.id}/approve`, { token: runner })).statusCode, 200);
});

test('another tenant\'s request answers 404 to reads and decisions, and is not listed', async (t) => {
  const a = await t0.tenant();
  const b = await t0.tenant();
  const req = await open(a.tenantId, await person(a.tenantId, ['actions:execute'], false));
  for (const [method, url] of [['GET', `/api/approvals/${req.id}`], ['POST', `/api/approvals/${req.id}/approve`], ['POST', `/api/approvals/${req.id}/deny`]]) {
    const res = await t0.request(method!, url!, { token: b.token });
    t.is(res.statusCode, 404, url);
    t.is(res.body.error.code, 'not_found');
  }
  const list = await t0.request('GET', '/api/approvals', { token: b.token });
  t.deepEqual(list.body, { data: [], meta: { total: 0, page: 1, per_page: 20, total_pages: 0 } });
  t.is((await t0.ctx.db('approval_decisions').where({ request_id: req.id })).length, 0);
});

test('list: status and subject filters, pagination, newest first', async (t) => {
  const { tenantId, token } = await t0.tenant();
  const requester = await person(tenantId, ['actions:execute'], false);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push((await open(tenantId, requester, i === 2 ? { subject: { kind: 'playbook_run', id: 'pbx_demo' } } : {})).id);
    await new Promise((r) => setTimeout(r, 2));
  }
  await t0.request('POST', `/api/approvals/${ids[0]}/deny`, { token });
  const page1 = await t0.request('GET', '/api/approvals?per_page=2', { token });
  t.deepEqual(page1.body.data.map((r: any) => r.id), [ids[2], ids[1]]);
  t.deepEqual(page1.body.meta, { total: 3, page: 1, per_page: 2, total_pages: 2 });
  const pending = await t0.request('GET', '/api/approvals?status=pending', { token });
  t.deepEqual(pending.body.data.map((r: any) => r.id), [ids[2], ids[1]]);
  const denied = await t0.request('GET', '/api/approvals?status=denied', { token });
  t.deepEqual(denied.body.data.map((r: any) => [r.id, r.decisions.length]), [[ids[0], 1]]);
  const playbooks = await t0.request('GET', '/api/approvals?subject_kind=playbook_run', { token });
  t.deepEqual(playbooks.body.data.map((r: any) => r.id), [ids[2]]);
  const bySubject = await t0.request('GET', '/api/approvals?subject_id=pbx_demo', { token });
  t.deepEqual(bySubject.body.data.map((r: any) => r.id), [ids[2]]);
});

test('bad input is 400 in the error shape and writes nothing', async (t) => {
  const { tenantId, token } = await t0.tenant();
  const req = await open(tenantId, await person(tenantId, ['actions:execute'], false));
  const cases: Array<[string, string, unknown]> = [
    ['POST', `/api/approvals/${req.id}/approve`, { comment: 'x'.repeat(2001) }],
    ['POST', `/api/approvals/${req.id}/approve`, { comment: 'ok', approve: true }],
    ['POST', `/api/approvals/${req.id}/deny`, { comment: 'bell\u0007' }],
    ['POST', `/api/approvals/${req.id}/deny`, { comment: 42 }],
    ['POST', '/api/approvals/not-an-id/approve', {}],
    ['GET', '/api/approvals?status=waiting', undefined],
    ['GET', '/api/approvals?per_page=101', undefined],
    ['GET', '/api/approvals?sort=id', undefined],
    ['GET', `/api/approvals/${req.id}?x=1`, undefined],
  ];
  for (const [method, url, payload] of cases) {
    const res = await t0.request(method, url, { token, payload });
    t.is(res.statusCode, 400, `${method} ${url} ${JSON.stringify(payload)?.slice(0, 40)}`);
    t.is(res.body.error.code, 'validation_failed');
  }
  t.is((await t0.ctx.db('approval_decisions').where({ request_id: req.id })).length, 0);
  t.is((await t0.request('GET', `/api/approvals/${req.id}`, { token })).body.data.status, 'pending');
});

test('the app runs the sweeper in the worker role: an overdue request expires and its handler runs', async (t) => {
  t.true(t0.ctx.background.registry.forRoles(['worker']).some((s) => s.name === 'approvals'));
  t.false(t0.ctx.background.registry.forRoles(['api']).some((s) => s.name === 'approvals'));
  const { tenantId, token } = await t0.tenant();
  const req = await open(tenantId, await person(tenantId, ['actions:execute'], false), { onExpiry: 'deny' });
  // Already overdue: the first round of the loop finds it.
  await t0.ctx.db('approval_requests').where({ id: req.id }).update({ expires_at: Date.now() - 1, due_at: Date.now() - 1 });
  t0.ctx.background.approvals.start();
  try {
    const view = await eventually(async () => {
      const res = await t0.request('GET', `/api/approvals/${req.id}`, { token });
      return res.body.data.status !== 'pending' && res.body.data;
    }, 10_000);
    t.like(view, { status: 'denied', resolved_by: 'expiry' });
    await eventually(async () => handled.includes(`${req.id}:denied`), 10_000);
  } finally {
    await t0.ctx.background.approvals.stop();
  }
});
