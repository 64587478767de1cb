import test from 'ava';
import { actionStep, playbookWorld, type PlaybookWorld } from '../../core/playbooks/runs/playbook-fixture.ts';

/**
 * Run parameters as the spec has them (issue 24, defects 2 and 5): the spec's playbook
 * declares no `parameters`, its run's `parameters` "override defaults" and steps read
 * them through `{{ parameters.x }}`. A declared list keeps the strict checks.
 */
let w: PlaybookWorld;
let ok: string;
let counted: string;

test.before(async () => {
  w = await playbookWorld();
  ok = await w.action('ok', 'ok.js', ['note']);
  counted = await w.action('counted', 'ok.js', [], { parameters: [{ name: 'count', type: 'integer', required: true }] });
  w.startWorkers();
});
test.after.always(async () => w?.close());

const post = (url: string, payload: unknown) => w.app.request('POST', url, { token: w.token, payload });
const specPlaybook = (steps: unknown[]) => post('/api/playbooks', { name: `spec-${Math.random()}`, version: '1.0.0', trigger: { event: 'manual', conditions: {} }, steps });

test.serial('a playbook that declares no parameters accepts any {{ parameters.* }} and renders the run\'s values', async (t) => {
  const created = await specPlaybook([actionStep('s1', ok, { note: 'x={{ parameters.x }}' })]);
  t.is(created.statusCode, 201, created.raw);
  const id = await w.run(created.body.data.id, { parameters: { x: 'forty-two' } });
  const done = await w.until(id, ['completed', 'failed']);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  t.true(w.runsOf().some((r) => r.params.note === 'x=forty-two'));
});

test.serial('a run missing such a value fails that step with an error naming the parameter', async (t) => {
  const created = await specPlaybook([actionStep('s1', ok, { note: 'x={{ parameters.x }}' })]);
  const before = w.runsOf().length;
  const id = await w.run(created.body.data.id, {});
  const done = await w.until(id, ['completed', 'failed']);
  t.is(done.status, 'failed');
  t.is(done.error.failed_steps[0].code, 'missing_parameter');
  t.regex(done.error.message, /parameters\.x/);
  const [step] = await w.steps(id);
  t.is(step.status, 'failed');
  t.regex(step.error.message, /"x".*"parameters"/);
  t.is(w.runsOf().length, before, 'the action never ran with the placeholder as text');
});

test.serial('a dry run missing such a value plans that step as failed, naming the parameter; the plan reads failed', async (t) => {
  const created = await specPlaybook([actionStep('s1', ok, { note: 'x={{ parameters.x }}' })]);
  const plan = (await post(`/api/playbooks/${created.body.data.id}/run`, { dry_run: true })).body.data;
  t.is(plan.status, 'failed');
  t.is(plan.steps[0].plan.status, 'failed');
  t.is(plan.steps[0].plan.error.code, 'missing_parameter');
  t.regex(plan.steps[0].plan.error.message, /"x"/);
  t.is(plan.steps[0].outcome.status, 'failed');
  const given = (await post(`/api/playbooks/${created.body.data.id}/run`, { dry_run: true, parameters: { x: 1 } })).body.data;
  t.is(given.status, 'completed');
  t.deepEqual(given.steps[0].parameters, { note: 'x=1' });
});

test.serial('a declared list stays strict: an undeclared placeholder is refused at creation, an undeclared run parameter is a 400 naming it', async (t) => {
  const strict = await post('/api/playbooks', { name: `strict-${Date.now()}`, version: '1.0.0', trigger: { event: 'manual', conditions: {} }, parameters: { who: 'soc' }, steps: [actionStep('s1', ok, { note: '{{ parameters.whom }}' })] });
  t.is(strict.statusCode, 400);
  t.is(strict.body.error.code, 'invalid_playbook');
  const pb = await w.playbook({ parameters: { who: 'soc' }, steps: [actionStep('s1', ok, { note: '{{ parameters.who }}' })] });
  const runs = async () => Number((await w.app.ctx.db('playbook_runs').where({ playbook_id: pb }).count({ n: '*' }).first())!.n);
  for (const dry_run of [false, true]) {
    const res = await post(`/api/playbooks/${pb}/run`, { dry_run, parameters: { whoo: 'typo' } });
    t.is(res.statusCode, 400, res.raw);
    t.is(res.body.error.code, 'unknown_parameter');
    t.regex(res.body.error.message, /"whoo"/);
    t.deepEqual(res.body.error.details.map((d: { field: string }) => d.field), ['parameters.whoo']);
  }
  t.is(await runs(), 0);
  t.is((await post(`/api/playbooks/${pb}/run`, { parameters: { who: 'night' } })).statusCode, 202);
});

test.serial('a step refused with "Invalid parameters." puts the field-level details in the run\'s error', async (t) => {
  const pb = await w.playbook({ steps: [actionStep('s1', counted, { count: 'many' })] });
  const id = await w.run(pb);
  const done = await w.until(id, ['completed', 'failed']);
  t.is(done.status, 'failed');
  t.regex(done.error.message, /parameters\.count/);
  t.deepEqual(done.error.failed_steps[0].details.map((d: { field: string }) => d.field), ['parameters.count']);
});

test.serial('a dry run without mocks whose step plan fails reads failed, and the step\'s outcome says so', async (t) => {
  const pb = await w.playbook({ steps: [actionStep('s1', counted, { count: 'many' }, 's2'), actionStep('s2', ok, {})] });
  const plan = (await post(`/api/playbooks/${pb}/run`, { dry_run: true })).body.data;
  t.is(plan.steps[0].plan.status, 'failed');
  t.is(plan.steps[0].outcome.status, 'failed');
  t.is(plan.status, 'failed');
  t.false(plan.steps[1].would_run);
  const cont = await w.playbook({ on_failure: 'continue', steps: [actionStep('s1', counted, { count: 'many' }, 's2'), actionStep('s2', ok, {})] });
  const c = (await post(`/api/playbooks/${cont}/run`, { dry_run: true })).body.data;
  t.is(c.status, 'completed');
  t.deepEqual(c.failed_steps, ['s1']);
  t.true(c.steps[1].would_run);
});
