import test from 'ava';
import { actionStep, playbookWorld, type PlaybookWorld } from '../../core/playbooks/runs/playbook-fixture.ts';

const SECRET = 'canary-Secret-9f8e7d';
let w: PlaybookWorld;
let ok: string;
let keyed: string;
let pb: string;
let readOnly: string;
let other: { token: string };

test.before(async () => {
  w = await playbookWorld();
  ok = await w.action('ok', 'ok.js', ['note']);
  {
    const res = await w.app.request('POST', '/api/credentials', { token: w.token, payload: { name: 'key', value: SECRET } });
    if (res.statusCode !== 201) throw new Error(res.raw);
  }
  keyed = await w.action('keyed', 'ok.js', ['note'], { parameters: [{ name: 'note', type: 'string', required: false }, { name: 'key', type: 'secret', required: true }] });
  pb = await w.playbook({
    on_failure: 'abort',
    trigger: { event: 'finding.new', conditions: {} },
    parameters: { who: 'soc' },
    steps: [
      actionStep('contain', keyed, { note: 'contain for {{ parameters.who }}' }, 'check'),
      { id: 'check', name: 'check', type: 'condition', if: { 'steps.contain.output.data.blocked': true }, on_true: 'notify', on_false: 'escalate' },
      actionStep('notify', ok, { note: 'blocked {{ steps.contain.output.data.ip }}' }),
      actionStep('escalate', ok, { note: 'escalate {{ event.data.title }}' }),
    ],
  });
  readOnly = (await w.app.ctx.services.admin.createToken(w.tenantId, { name: 'ro', scopes: ['playbooks:read'], expiresAt: null })).token;
  other = await w.app.tenant();
  w.startWorkers();
});
test.after.always(async () => w?.close());

const post = (url: string, payload: unknown, token = w.token) => w.app.request('POST', url, { token, payload });

test.serial('run answers 202 {execution_id, playbook_id, status, started_at}; the record, steps and list follow', async (t) => {
  const res = await post(`/api/playbooks/${pb}/run`, { parameters: { who: 'night shift' }, event: { kind: 'finding.new', data: { title: 'sqli' } } });
  t.is(res.statusCode, 202, res.raw);
  t.deepEqual(Object.keys(res.body.data).sort(), ['execution_id', 'playbook_id', 'started_at', 'status']);
  t.is(res.body.data.status, 'running');
  t.truthy(res.body.data.started_at);
  const id = res.body.data.execution_id;
  const done = await w.until(id, ['completed', 'failed']);
  t.is(done.status, 'completed');
  t.is(done.playbook_id, pb);
  t.is(done.steps_total, 4);
  t.is(done.steps_completed, 3);
  t.is(typeof done.duration_seconds, 'number');
  t.is(done.trigger_event_id, null);
  t.deepEqual(done.parameters, { who: 'night shift' });
  t.true(w.runsOf().some((r) => r.params.note === 'escalate sqli'));
  const steps = (await w.app.request('GET', `/api/playbooks/executions/${id}/steps`, { token: readOnly })).body.data;
  t.deepEqual(steps.map((s: { step_id: string; status: string }) => `${s.step_id}:${s.status}`), ['contain:completed', 'check:completed', 'escalate:completed', 'notify:skipped']);
  t.is(steps[0].output.execution_id, steps[0].action_execution_id);
  t.false(JSON.stringify(steps).includes(SECRET));
  const list = await w.app.request('GET', `/api/playbooks/${pb}/executions?per_page=1`, { token: readOnly });
  t.is(list.statusCode, 200);
  t.is(list.body.data.length, 1);
  t.is(list.body.meta.total, 1);
  t.is(list.body.data[0].execution_id, id);
});

test.serial('dry run: the plan with rendered parameters, masked secrets, the branch taken, and nothing stored or run', async (t) => {
  const before = w.runsOf().length;
  const runsBefore = await w.app.ctx.db('playbook_runs').count({ n: '*' }).first();
  const res = await post(`/api/playbooks/${pb}/run`, { dry_run: true, event: { kind: 'finding.new', data: { title: 'xss' } } });
  t.is(res.statusCode, 200, res.raw);
  t.false(res.raw.includes(SECRET));
  const plan = res.body.data;
  t.is(plan.dry_run, true);
  t.is(plan.status, 'completed');
  t.deepEqual(plan.steps.map((s: { step_id: string; would_run: boolean }) => `${s.step_id}:${s.would_run}`), ['contain:true', 'check:true', 'escalate:true', 'notify:false']);
  t.deepEqual(plan.steps[0].action, { id: keyed, name: 'keyed', version: '1.0.0' });
  t.deepEqual(plan.steps[0].parameters, { note: 'contain for soc' });
  t.is(plan.steps[0].plan.status, 'completed');
  t.true(JSON.stringify(plan.steps[0].plan.request).includes('********'));
  t.is(plan.steps[1].branch, 'on_false');
  t.deepEqual(plan.steps[2].parameters, { note: 'escalate xss' });
  t.is(w.runsOf().length, before);
  t.deepEqual(await w.app.ctx.db('playbook_runs').count({ n: '*' }).first(), runsBefore);
});

test.serial('dry run with mocks: a mocked output takes the other branch; unresolved placeholders are reported, not fatal', async (t) => {
  const res = await post(`/api/playbooks/${pb}/run`, { dry_run: true, mocks: { contain: { status: 'completed', output: { data: { blocked: true } } } } });
  t.is(res.statusCode, 200, res.raw);
  const by = Object.fromEntries(res.body.data.steps.map((s: { step_id: string }) => [s.step_id, s]));
  t.is(by.check.branch, 'on_true');
  t.true(by.notify.would_run);
  t.false(by.escalate.would_run);
  t.deepEqual(by.notify.unresolved_placeholders, ['steps.contain.output.data.ip']);
  t.is(by.contain.outcome.mocked, true);
});

test.serial('dry run with a failing mock follows on_failure both ways', async (t) => {
  const flow = (on_failure: string) => ({ on_failure, steps: [actionStep('a', ok, {}, 'b'), actionStep('b', ok, {}, 'c'), actionStep('c', ok, {})] });
  const abort = await w.playbook(flow('abort'));
  const cont = await w.playbook(flow('continue'));
  const mocks = { b: { status: 'failed', output: { error: 'nope' } } };
  const a = (await post(`/api/playbooks/${abort}/run`, { dry_run: true, mocks })).body.data;
  t.is(a.status, 'failed');
  t.deepEqual(a.steps.map((s: { step_id: string; would_run: boolean }) => `${s.step_id}:${s.would_run}`), ['a:true', 'b:true', 'c:false']);
  t.is(a.steps[1].outcome.status, 'failed');
  const c = (await post(`/api/playbooks/${cont}/run`, { dry_run: true, mocks })).body.data;
  t.is(c.status, 'completed');
  t.deepEqual(c.steps.map((s: { step_id: string; would_run: boolean }) => `${s.step_id}:${s.would_run}`), ['a:true', 'b:true', 'c:true']);
});

test.serial('a disabled playbook runs by hand only as a dry run (409 playbook_disabled otherwise)', async (t) => {
  const off = await w.playbook({ steps: [actionStep('a', ok, {})] });
  t.is((await w.app.request('PATCH', `/api/playbooks/${off}`, { token: w.token, payload: { enabled: false } })).statusCode, 200);
  const res = await post(`/api/playbooks/${off}/run`, {});
  t.is(res.statusCode, 409);
  t.is(res.body.error.code, 'playbook_disabled');
  t.is((await post(`/api/playbooks/${off}/run`, { dry_run: true })).statusCode, 200);
  t.is((await w.app.ctx.db('playbook_runs').where({ playbook_id: off })).length, 0);
});

test.serial('bad input: each a 4xx in the one error shape, nothing written', async (t) => {
  const count = async () => Number((await w.app.ctx.db('playbook_runs').count({ n: '*' }).first())?.n);
  const before = await count();
  const cases: Array<[string, unknown, number, string?]> = [
    [`/api/playbooks/${pb}/run`, { mocks: { contain: { status: 'failed' } } }, 400, 'mocks'],
    [`/api/playbooks/${pb}/run`, { dry_run: true, mocks: { nope: { status: 'failed' } } }, 400, 'mocks.nope'],
    [`/api/playbooks/${pb}/run`, { dry_run: true, mocks: { check: { status: 'failed' } } }, 400, 'mocks.check'],
    [`/api/playbooks/${pb}/run`, { dry_run: true, mocks: { contain: { status: 'maybe' } } }, 400],
    [`/api/playbooks/${pb}/run`, { target_asset_id: 'ast_01HZZZZZZZZZZZZZZZZZZZZZZZ' }, 404],
    [`/api/playbooks/${pb}/run`, { target_asset_id: 'nope' }, 400],
    [`/api/playbooks/${pb}/run`, { event: { kind: 'no.such' } }, 400],
    ['/api/playbooks/pbk_01HZZZZZZZZZZZZZZZZZZZZZZZ/run', {}, 404],
    ['/api/playbooks/not-an-id/run', {}, 400],
  ];
  for (const [url, payload, status, field] of cases) {
    const res = await post(url, payload);
    t.is(res.statusCode, status, `${url} ${JSON.stringify(payload)}: ${res.raw}`);
    t.is(res.body.status, 'error');
    t.truthy(res.body.error.code);
    if (field) t.true(res.body.error.details.some((d: { field: string }) => d.field === field), res.raw);
  }
  t.is(await count(), before);
  t.is((await w.app.request('GET', '/api/playbooks/executions/pbx_01HZZZZZZZZZZZZZZZZZZZZZZZ', { token: w.token })).statusCode, 404);
  t.is((await post('/api/playbooks/executions/pbx_01HZZZZZZZZZZZZZZZZZZZZZZZ/cancel', {})).statusCode, 404);
});

test.serial('scopes: playbooks:read cannot run or cancel; another tenant sees 404 everywhere', async (t) => {
  t.is((await post(`/api/playbooks/${pb}/run`, {}, readOnly)).statusCode, 403);
  const id = (await w.app.request('GET', `/api/playbooks/${pb}/executions`, { token: readOnly })).body.data[0].execution_id;
  t.is((await post(`/api/playbooks/executions/${id}/cancel`, {}, readOnly)).statusCode, 403);
  t.is((await w.app.request('GET', `/api/playbooks/executions/${id}`, { token: other.token })).statusCode, 404);
  t.is((await w.app.request('GET', `/api/playbooks/executions/${id}/steps`, { token: other.token })).statusCode, 404);
  t.is((await w.app.request('GET', `/api/playbooks/${pb}/executions`, { token: other.token })).statusCode, 404);
  t.is((await post(`/api/playbooks/executions/${id}/cancel`, {}, other.token)).statusCode, 404);
  t.is((await post(`/api/playbooks/${pb}/run`, {}, other.token)).statusCode, 404);
});
