import test from 'ava';
import { eventually } from '../../../_helpers/harness/eventually.ts';
import { actionStep, playbookWorld, type PlaybookWorld } from './playbook-fixture.ts';

let w: PlaybookWorld;
let ok: string;
let fail: string;
let slow: string;

test.before(async () => {
  w = await playbookWorld();
  ok = await w.action('ok', 'ok.js', ['ip', 'note', 'level']);
  fail = await w.action('fail', 'fail.js');
  slow = await w.action('slow', 'slow.js');
  w.startWorkers();
});
test.after.always(async () => w?.close());

test.serial('a linear three-step run: each step runs its action once, later steps render earlier outputs, events in order', async (t) => {
  const pb = await w.playbook({
    parameters: { level: 'high' },
    steps: [
      actionStep('s1', ok, { note: 'first {{ parameters.level }}' }, 's2'),
      actionStep('s2', 'ok', { ip: '{{ steps.s1.output.data.ip }}' }, 's3'),
      actionStep('s3', `ok@1.0.0`, { note: 'after {{ steps.s2.output.data.params.ip }}', level: '{{ parameters.level }}' }),
    ],
  });
  const id = await w.run(pb, { parameters: { level: 'critical' } });
  const done = await w.until(id, ['completed', 'failed']);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  t.is(done.steps_completed, 3);
  t.is(done.steps_total, 3);
  t.is(done.current_step, 's3');
  t.deepEqual(done.parameters, { level: 'critical' });
  const steps = await w.steps(id);
  t.deepEqual(steps.map((s) => `${s.step_id}:${s.status}`), ['s1:completed', 's2:completed', 's3:completed']);
  t.is(steps[1].output.status, 'completed');
  t.deepEqual(steps[1].output.output.data.params, { ip: '203.0.113.7' });
  const ran = w.runsOf().filter((r) => steps.some((s) => s.action_execution_id === r.executionId));
  t.deepEqual(ran.map((r) => r.params), [{ note: 'first critical' }, { ip: '203.0.113.7' }, { note: 'after 203.0.113.7', level: 'critical' }]);
  t.deepEqual(await w.events(id), ['playbook.started:running', 'playbook.completed:completed']);
});

test.serial('on_failure abort: the run fails at the failing step, later steps are skipped and never run', async (t) => {
  const pb = await w.playbook({ on_failure: 'abort', steps: [actionStep('a', ok, {}, 'b'), actionStep('b', fail, {}, 'c'), actionStep('c', ok, { note: 'never' })] });
  const id = await w.run(pb);
  const done = await w.until(id, ['completed', 'failed']);
  t.is(done.status, 'failed');
  t.is(done.error.code, 'step_failed');
  t.is(done.error.step_id, 'b');
  t.deepEqual((await w.steps(id)).map((s) => `${s.step_id}:${s.status}`), ['a:completed', 'b:failed', 'c:skipped']);
  t.false(w.runsOf().some((r) => r.params.note === 'never'));
  t.deepEqual(await w.events(id), ['playbook.started:running', 'playbook.failed:failed']);
});

test.serial('on_failure continue: the failed step is recorded, the next step runs, the run completes listing the failure', async (t) => {
  const pb = await w.playbook({ on_failure: 'continue', steps: [actionStep('a', fail, {}, 'b'), actionStep('b', ok, { note: 'continued' })] });
  const id = await w.run(pb);
  const done = await w.until(id, ['completed', 'failed']);
  t.is(done.status, 'completed');
  t.is(done.error.code, 'steps_failed');
  t.deepEqual(done.error.failed_steps.map((f: { step_id: string }) => f.step_id), ['a']);
  const steps = await w.steps(id);
  t.deepEqual(steps.map((s) => `${s.step_id}:${s.status}`), ['a:failed', 'b:completed']);
  t.is(steps[0].error.code, 'boom');
  t.true(w.runsOf().some((r) => r.params.note === 'continued'));
  t.deepEqual(await w.events(id), ['playbook.started:running', 'playbook.completed:completed']);
});

test.serial('a condition step takes on_true or on_false over earlier outputs; the other branch is skipped', async (t) => {
  const pb = await w.playbook({
    parameters: { level: 'low' },
    steps: [
      actionStep('probe', ok, { level: '{{ parameters.level }}' }, 'check'),
      { id: 'check', name: 'check', type: 'condition', if: { 'steps.probe.output.data.params.level': { gte: 'high' } }, on_true: 'block', on_false: 'note' },
      actionStep('block', ok, { note: 'blocked' }),
      actionStep('note', ok, { note: 'noted' }),
    ],
  });
  for (const [level, taken, other] of [['critical', 'block', 'note'], ['low', 'note', 'block']] as const) {
    const id = await w.run(pb, { parameters: { level } });
    const done = await w.until(id, ['completed', 'failed']);
    t.is(done.status, 'completed');
    const steps = await w.steps(id);
    const by = Object.fromEntries(steps.map((s) => [s.step_id, s]));
    t.is(by.check.output.result, level === 'critical');
    t.is(by[taken].status, 'completed');
    t.is(by[other].status, 'skipped');
  }
});

test.serial('a parallel step runs its branches and joins before on_success', async (t) => {
  const pb = await w.playbook({
    steps: [
      { id: 'fan', name: 'fan', type: 'parallel', next_steps: ['left', 'right'], on_success: 'join' },
      actionStep('left', ok, { note: 'left' }, 'left2'),
      actionStep('left2', ok, { note: 'left2' }),
      actionStep('right', ok, { note: 'right' }),
      actionStep('join', ok, { note: 'join {{ steps.left2.output.data.params.note }} {{ steps.right.output.data.params.note }}' }),
    ],
  });
  const id = await w.run(pb);
  const done = await w.until(id, ['completed', 'failed']);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  const steps = await w.steps(id);
  const by = Object.fromEntries(steps.map((s) => [s.step_id, s]));
  for (const s of ['fan', 'left', 'left2', 'right', 'join']) t.is(by[s].status, 'completed', s);
  const at = (s: string) => Date.parse(by[s].completed_at);
  t.true(Date.parse(by.join.started_at) >= Math.max(at('left2'), at('right')), 'the join starts after both branches ended');
  t.true(w.runsOf().some((r) => r.params.note === 'join left2 right'));
});

test.serial('a placeholder with no value fails the step naming it (never an empty string)', async (t) => {
  const pb = await w.playbook({ steps: [actionStep('a', ok, {}, 'b'), actionStep('b', ok, { note: '{{ steps.a.output.data.nothing_here }}' })] });
  const id = await w.run(pb);
  const done = await w.until(id, ['completed', 'failed']);
  t.is(done.status, 'failed');
  const b = (await w.steps(id)).find((s) => s.step_id === 'b');
  t.is(b.error.code, 'missing_placeholder');
  t.regex(b.error.message, /steps\.a\.output\.data\.nothing_here/);
  t.is(b.action_execution_id, null);
});

test.serial('timeout: at the deadline the running step action is cancelled and the run fails with timeout', async (t) => {
  const pb = await w.playbook({ timeout_minutes: 1, steps: [actionStep('wait', slow, {}, 'after'), actionStep('after', ok, { note: 'after-timeout' })] });
  const id = await w.run(pb);
  const exe = await w.until(id, ['running']).then(async () => {
    for (;;) {
      const s = (await w.steps(id))[0];
      if (s && w.runsOf().some((r) => r.executionId === s.action_execution_id)) return s.action_execution_id as string;
      await new Promise((r) => setTimeout(r, 25));
    }
  });
  const worker = w.app.ctx.background.playbooks;
  // The engine's clock, moved past the one-minute deadline: nobody waits a minute.
  worker.now = () => Date.now() + 61_000;
  try {
    worker.wake();
    const done = await w.until(id, ['failed', 'completed']);
    t.is(done.status, 'failed');
    t.is(done.error.code, 'timeout');
    const steps = await w.steps(id);
    t.deepEqual(steps.map((s) => `${s.step_id}:${s.status}`), ['wait:cancelled', 'after:skipped']);
    // The run ends first and its step's action is cancelled after that commit (run-worker.ts).
    const action = await eventually(async () => {
      const data = (await w.app.request('GET', `/api/actions/executions/${exe}`, { token: w.token })).body.data as { status: string; cancel_requested: boolean };
      return (data.cancel_requested || data.status === 'cancelled') && data;
    }, 10_000);
    t.true(['cancelled', 'running'].includes(action.status));
    t.deepEqual(await w.events(id), ['playbook.started:running', 'playbook.failed:failed']);
  } finally {
    worker.now = Date.now;
  }
});

test.serial('cancel: a running run ends cancelled, its running action is cancelled, a second cancel answers 409', async (t) => {
  const pb = await w.playbook({ steps: [actionStep('wait', slow, {}, 'after'), actionStep('after', ok, { note: 'after-cancel' })] });
  const id = await w.run(pb);
  const exe = await (async () => {
    for (;;) {
      const s = (await w.steps(id))[0];
      if (s && w.runsOf().some((r) => r.executionId === s.action_execution_id)) return s.action_execution_id as string;
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  const res = await w.app.request('POST', `/api/playbooks/executions/${id}/cancel`, { token: w.token, payload: {} });
  t.is(res.statusCode, 200);
  t.is(res.body.data.status, 'cancelled');
  t.is(res.body.data.error.code, 'cancelled');
  const action = await (async () => {
    for (;;) {
      const a = (await w.app.request('GET', `/api/actions/executions/${exe}`, { token: w.token })).body.data;
      if (a.status === 'cancelled') return a;
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  t.is(action.status, 'cancelled');
  t.deepEqual((await w.steps(id)).map((s) => `${s.step_id}:${s.status}`), ['wait:cancelled', 'after:skipped']);
  const again = await w.app.request('POST', `/api/playbooks/executions/${id}/cancel`, { token: w.token, payload: {} });
  t.is(again.statusCode, 409);
  t.is(again.body.error.code, 'execution_finished');
  t.deepEqual(await w.events(id), ['playbook.started:running', 'playbook.failed:cancelled']);
  t.false(w.runsOf().some((r) => r.params.note === 'after-cancel'));
});
