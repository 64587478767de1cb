import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { TENANT_SCOPES } from '../../../core/domain/scopes.ts';

let app: TestApp;
let tenantId: string;
let requester: string;
let approverB: string;
let approverC: string;
let actionId: string;

test.before(async () => {
  app = await createTestApp();
  ({ tenantId, token: requester } = await app.tenant());
  const token = async () => (await app.ctx.services.admin.createToken(tenantId, { name: `t${Math.random()}`, scopes: TENANT_SCOPES, expiresAt: null })).token;
  approverB = await token();
  approverC = await token();
  const created = await app.request('POST', '/api/actions', {
    token: requester,
    payload: { name: 'change-approval', type: 'approval', executor: 'local', config: { required_approvals: 2, expires_in_seconds: 3600, message: 'Block {{ range }} for {{hours}} h? Ticket {{ ticket }}' }, parameters: [{ name: 'range', type: 'string', required: true }, { name: 'hours', type: 'integer', default: 24 }, { name: 'ticket', type: 'string' }] },
  });
  if (created.statusCode !== 201) throw new Error(created.raw);
  actionId = created.body.data.id;
});

test.after.always(async () => app.close());

const trigger = async () => {
  const res = await app.request('POST', `/api/actions/${actionId}/trigger`, { token: requester, payload: { parameters: { range: '203.0.113.0/24' } } });
  return res.body.data as { execution_id: string; approval_id: string; status: string };
};
const execution = async (id: string) => (await app.request('GET', `/api/actions/executions/${id}`, { token: requester })).body.data;
const kinds = async (id: string) => (await app.ctx.db('events').orderBy('id')).filter((e: { data: string }) => JSON.parse(e.data).execution_id === id).map((e: { kind: string; data: string }) => `${e.kind}:${JSON.parse(e.data).status}`);

test.serial('an approval action waits in pending until its quorum approves, then completes', async (t) => {
  const run = await trigger();
  t.is(run.status, 'pending');
  t.truthy(run.approval_id);
  const request = await app.request('GET', `/api/approvals/${run.approval_id}`, { token: approverB });
  t.is(request.body.data.status, 'pending');
  // The message template is filled with the run's parameters; one not given says so.
  t.is(request.body.data.message, 'Block 203.0.113.0/24 for 24 h? Ticket (not given)');
  t.is(request.body.data.subject.id, run.execution_id);
  const self = await app.request('POST', `/api/approvals/${run.approval_id}/approve`, { token: requester, payload: {} });
  t.is(self.statusCode, 403);
  t.is((await app.request('POST', `/api/approvals/${run.approval_id}/approve`, { token: approverB, payload: { comment: 'ok' } })).statusCode, 200);
  t.is((await execution(run.execution_id)).status, 'pending');
  t.is((await app.request('POST', `/api/approvals/${run.approval_id}/approve`, { token: approverB, payload: {} })).statusCode, 409, 'the same person twice');
  t.is((await app.request('POST', `/api/approvals/${run.approval_id}/approve`, { token: approverC, payload: {} })).statusCode, 200);
  const done = await execution(run.execution_id);
  t.is(done.status, 'completed');
  t.is(done.output.decision, 'approved');
  t.deepEqual(await kinds(run.execution_id), ['action.triggered:pending', 'action.completed:completed']);
});

test.serial('a denial fails the run with approval_denied', async (t) => {
  const run = await trigger();
  t.is((await app.request('POST', `/api/approvals/${run.approval_id}/deny`, { token: approverC, payload: { comment: 'not now' } })).statusCode, 200);
  const done = await execution(run.execution_id);
  t.is(done.status, 'failed');
  t.is(done.error.code, 'approval_denied');
  t.deepEqual(await kinds(run.execution_id), ['action.triggered:pending', 'action.failed:failed']);
});

test.serial('cancelling a waiting run cancels its approval request', async (t) => {
  const run = await trigger();
  const res = await app.request('POST', `/api/actions/executions/${run.execution_id}/cancel`, { token: requester });
  t.is(res.statusCode, 202);
  t.is(res.body.data.status, 'cancelled');
  t.is((await app.request('GET', `/api/approvals/${run.approval_id}`, { token: requester })).body.data.status, 'cancelled');
  t.is((await app.request('POST', `/api/approvals/${run.approval_id}/approve`, { token: approverB, payload: {} })).statusCode, 409);
  t.is((await execution(run.execution_id)).status, 'cancelled');
});

test.serial('a dry run of an approval action shows the request it would make and creates none', async (t) => {
  const before = (await app.request('GET', '/api/approvals?per_page=100', { token: requester })).body.meta.total;
  const res = await app.request('POST', `/api/actions/${actionId}/trigger`, { token: requester, payload: { parameters: { range: '10.0.0.0/8' }, dry_run: true } });
  t.is(res.statusCode, 200);
  t.deepEqual(res.body.data.plan.approval, { required_approvals: 2, approvers: null, expires_in_seconds: 3600, on_expiry: 'fail', message: 'Block 10.0.0.0/8 for 24 h? Ticket (not given)' });
  t.is((await app.request('GET', '/api/approvals?per_page=100', { token: requester })).body.meta.total, before);
});

test.serial('approve racing cancel: the approval request decides, so the run and its request always agree (issue 25)', async (t) => {
  const outcomes = new Set<string>();
  for (let i = 0; i < 12; i++) {
    const run = await trigger();
    t.is((await app.request('POST', `/api/approvals/${run.approval_id}/approve`, { token: approverB, payload: {} })).statusCode, 200);
    // The second approval completes the quorum while the requester cancels the run.
    const [approve, cancel] = await Promise.all([
      app.request('POST', `/api/approvals/${run.approval_id}/approve`, { token: approverC, payload: {} }),
      app.request('POST', `/api/actions/executions/${run.execution_id}/cancel`, { token: requester, payload: {} }),
    ]);
    const done = await execution(run.execution_id);
    const request = (await app.request('GET', `/api/approvals/${run.approval_id}`, { token: requester })).body.data;
    const pair = `${request.status}/${done.status}`;
    outcomes.add(pair);
    t.true(['approved/completed', 'cancelled/cancelled'].includes(pair), `request ${request.status}, run ${done.status} (approve ${approve.statusCode}, cancel ${cancel.statusCode} ${cancel.raw})`);
    if (pair === 'approved/completed') t.is(cancel.statusCode, 409, cancel.raw);
    else t.is(approve.statusCode, 409, approve.raw);
  }
  t.log(`outcomes: ${[...outcomes].join(', ')}`);
});
