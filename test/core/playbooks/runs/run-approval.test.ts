import test from 'ava';
import { TENANT_SCOPES } from '../../../../core/domain/scopes.ts';
import { eventually } from '../../../_helpers/harness/eventually.ts';
import { actionStep, playbookWorld, type PlaybookWorld } from './playbook-fixture.ts';

let w: PlaybookWorld;
let ok: string;
let approver: string;
let pb: string;

test.before(async () => {
  w = await playbookWorld();
  ok = await w.action('ok', 'ok.js', ['note']);
  const approval = (await w.app.request('POST', '/api/actions', { token: w.token, payload: { name: 'gate', type: 'approval', executor: 'local', config: { required_approvals: 1, message: 'Go on?' }, parameters: [] } })).body.data.id;
  approver = (await w.app.ctx.services.admin.createToken(w.tenantId, { name: 'approver', scopes: TENANT_SCOPES, expiresAt: null })).token;
  pb = await w.playbook({ steps: [actionStep('first', ok, { note: 'before' }, 'gate'), actionStep('gate', approval, {}, 'last'), actionStep('last', ok, { note: 'after-approval' })] });
  w.startWorkers();
});
test.after.always(async () => w?.close());

const pausedAtGate = async (id: string) => {
  const paused = await w.until(id, ['paused', 'failed', 'completed']);
  const gate = (await w.steps(id)).find((s) => s.step_id === 'gate');
  return { paused, gate };
};

test.serial('an approval step pauses the run until it is approved through /api/approvals, then the run goes on', async (t) => {
  const id = await w.run(pb);
  const { paused, gate } = await pausedAtGate(id);
  t.is(paused.status, 'paused');
  t.is(paused.current_step, 'gate');
  t.is(gate.status, 'waiting');
  t.truthy(gate.output.approval_id);
  t.false(w.runsOf().some((r) => r.params.note === 'after-approval'));
  const self = await w.app.request('POST', `/api/approvals/${gate.output.approval_id}/approve`, { token: w.token, payload: {} });
  t.is(self.statusCode, 403, 'who started the run cannot approve its step');
  const res = await w.app.request('POST', `/api/approvals/${gate.output.approval_id}/approve`, { token: approver, payload: { comment: 'ok' } });
  t.is(res.statusCode, 200);
  const done = await w.until(id, ['completed', 'failed']);
  t.is(done.status, 'completed');
  const steps = await w.steps(id);
  t.deepEqual(steps.map((s) => `${s.step_id}:${s.status}`), ['first:completed', 'gate:completed', 'last:completed']);
  t.is(steps[1].output.output.decision, 'approved');
  await eventually(async () => w.runsOf().some((r) => r.params.note === 'after-approval'));
  t.deepEqual(await w.events(id), ['playbook.started:running', 'playbook.completed:completed']);
});

test.serial('a denied approval step fails the run; the steps after it never run', async (t) => {
  const before = w.runsOf().filter((r) => r.params.note === 'after-approval').length;
  const id = await w.run(pb);
  const { gate } = await pausedAtGate(id);
  t.is((await w.app.request('POST', `/api/approvals/${gate.output.approval_id}/deny`, { token: approver, payload: { comment: 'no' } })).statusCode, 200);
  const done = await w.until(id, ['completed', 'failed']);
  t.is(done.status, 'failed');
  t.is(done.error.step_id, 'gate');
  const steps = await w.steps(id);
  t.deepEqual(steps.map((s) => `${s.step_id}:${s.status}`), ['first:completed', 'gate:failed', 'last:skipped']);
  t.is(steps[1].error.code, 'approval_denied');
  t.is(w.runsOf().filter((r) => r.params.note === 'after-approval').length, before);
  t.deepEqual(await w.events(id), ['playbook.started:running', 'playbook.failed:failed']);
});

test.serial('cancelling a paused run cancels its pending approval request', async (t) => {
  const id = await w.run(pb);
  const { gate } = await pausedAtGate(id);
  const res = await w.app.request('POST', `/api/playbooks/executions/${id}/cancel`, { token: w.token, payload: {} });
  t.is(res.statusCode, 200);
  t.is(res.body.data.status, 'cancelled');
  // When a worker held the run, it ends the run and then cancels the step's action (and so
  // its approval request) just after the cancel call returns.
  const status = await eventually(async () => {
    const request = await w.app.request('GET', `/api/approvals/${gate.output.approval_id}`, { token: approver });
    return request.body.data.status === 'pending' ? undefined : request.body.data.status;
  }, 10_000);
  t.is(status, 'cancelled');
});

test.serial('approve racing cancel: the approval request decides, so the run, its steps and the request agree (issue 25)', async (t) => {
  const outcomes = new Set<string>();
  for (let i = 0; i < 8; i++) {
    const before = w.runsOf().filter((r) => r.params.note === 'after-approval').length;
    const id = await w.run(pb);
    const { gate } = await pausedAtGate(id);
    const approvalId = gate.output.approval_id;
    // Odd rounds give the cancel a head start, so both orders are met.
    const [approve, cancel] = await Promise.all([
      new Promise((r) => setTimeout(r, i % 2 ? 3 * i : 0)).then(() => w.app.request('POST', `/api/approvals/${approvalId}/approve`, { token: approver, payload: {} })),
      w.app.request('POST', `/api/playbooks/executions/${id}/cancel`, { token: w.token, payload: {} }),
    ]);
    const done = await w.until(id, ['completed', 'failed', 'cancelled']);
    const request = (await w.app.request('GET', `/api/approvals/${approvalId}`, { token: approver })).body.data;
    const steps = Object.fromEntries((await w.steps(id)).map((s: { step_id: string; status: string }) => [s.step_id, s.status]));
    const why = `request ${request.status}, run ${done.status}, steps ${JSON.stringify(steps)} (approve ${approve.statusCode}, cancel ${cancel.statusCode} ${cancel.raw})`;
    outcomes.add(`${request.status}/${done.status}/${cancel.statusCode}`);
    if (request.status === 'cancelled') {
      // The cancel won: the run ends cancelled at the gate and no step after it starts.
      t.is(approve.statusCode, 409, why);
      t.is(done.status, 'cancelled', why);
      t.is(steps.gate, 'cancelled', why);
      t.is(steps.last, 'skipped', why);
      await new Promise((r) => setTimeout(r, 100));
      t.is(w.runsOf().filter((r) => r.params.note === 'after-approval').length, before, why);
    } else {
      // The approval won: the gate reads completed, and the run follows the decision. A cancel
      // that found the step still waiting is a 409; one that came after the run moved on cancels it as any running run.
      t.is(request.status, 'approved', why);
      t.is(approve.statusCode, 200, why);
      t.is(steps.gate, 'completed', why);
      if (cancel.statusCode === 409) {
        t.is(cancel.body.error.code, 'approval_resolved', why);
        t.is(done.status, 'completed', why);
      } else t.is(done.status, 'cancelled', why);
    }
  }
  t.log(`outcomes: ${[...outcomes].join(', ')}`);
});

test.serial('cancelling the action run of a waiting approval step cancels the playbook run; the steps after it never start', async (t) => {
  const before = w.runsOf().filter((r) => r.params.note === 'after-approval').length;
  const id = await w.run(pb);
  const { gate } = await pausedAtGate(id);
  t.is((await w.app.request('POST', `/api/actions/executions/${gate.output.execution_id}/cancel`, { token: w.token, payload: {} })).statusCode, 202);
  const done = await w.until(id, ['completed', 'failed', 'cancelled']);
  t.is(done.status, 'cancelled');
  const steps = await w.steps(id);
  t.deepEqual(steps.map((s) => `${s.step_id}:${s.status}`), ['first:completed', 'gate:cancelled', 'last:skipped']);
  t.is(w.runsOf().filter((r) => r.params.note === 'after-approval').length, before);
});
