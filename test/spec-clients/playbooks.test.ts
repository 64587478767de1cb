import test from 'ava';
import { eventually } from '../_helpers/harness/eventually.ts';
import { createTestApp, type TestApp } from '../_helpers/harness/test-app.ts';
import { specFields, specListMeta } from '../_helpers/spec-clients/spec-fields.ts';

// Playbooks as a spec-only client uses them: no `parameters` declaration (a Rampart-only
// field), steps reading `{{ parameters.x }}` and `x` passed at run time (issue 24, defect 2),
// then the execution, its steps, the CACAO export and an import of an edited copy.
let t0: TestApp;
let token: string;
test.before(async () => {
  t0 = await createTestApp();
  ({ token } = await t0.tenant());
  const action = await t0.request('POST', '/api/actions', { token, payload: { name: 'note', type: 'script', executor: 'local', parameters: [{ name: 'text', type: 'string', required: true }], config: { source: 'return { noted: params.text };' } } });
  if (action.statusCode !== 201) throw new Error(action.raw);
  t0.ctx.background.actions.start();
  t0.ctx.background.playbooks.start();
});
test.after.always(async () => {
  await t0?.ctx.background.playbooks.stop();
  await t0?.ctx.background.actions.stop();
  await t0?.close();
});

const call = (method: string, url: string, payload?: unknown) => t0.request(method, url, { token, payload: payload as object });

const PLAYBOOK = {
  name: 'triage-critical', version: '1.0.0', description: 'Notes critical findings',
  trigger: { event: 'finding.new', conditions: { severity: 'critical' } },
  steps: [
    { id: 'first', name: 'First note', type: 'action', action_ref: 'note', parameters: { text: 'ticket={{ parameters.ticket }}' }, on_success: 'second' },
    { id: 'second', name: 'Second note', type: 'action', action_ref: 'note', parameters: { text: 'done' } },
  ],
  on_failure: 'abort', timeout_minutes: 30, tags: ['triage'],
};

test('create → read → list → run → execution → steps → export → import, with the spec\'s fields only', async (t) => {
  const created = await call('POST', '/api/playbooks', PLAYBOOK);
  t.is(created.statusCode, 201, created.raw);
  specFields(t, created.body.data, { id: 'string', name: 'string', version: 'string', step_count: 'integer', created_at: 'timestamp' }, 'POST /api/playbooks');
  const id = created.body.data.id;

  const read = await call('GET', `/api/playbooks/${id}`);
  specFields(t, read.body.data, { id: 'string', name: 'string', version: 'string', description: 'string', trigger: 'object', steps: 'array', step_count: 'integer', on_failure: 'string', timeout_minutes: 'integer', tags: 'array', created_at: 'timestamp', updated_at: 'timestamp' }, 'GET /api/playbooks/{id}');
  t.deepEqual(read.body.data.steps, PLAYBOOK.steps);

  const list = await call('GET', '/api/playbooks?search=triage&tag=triage&page=1&per_page=20');
  specListMeta(t, list.body, 'GET /api/playbooks');
  specFields(t, list.body.data[0], { id: 'string', name: 'string', version: 'string', description: 'string', trigger: 'object', step_count: 'integer', tags: 'array', created_at: 'timestamp', updated_at: 'timestamp' }, 'playbook list item');

  const dry = await call('POST', `/api/playbooks/${id}/run`, { parameters: { ticket: 'SEC-1' }, dry_run: true });
  t.is(dry.statusCode, 200, dry.raw);
  t.is(dry.body.data.status, 'completed');
  const run = await call('POST', `/api/playbooks/${id}/run`, { parameters: { ticket: 'SEC-1' } });
  t.is(run.statusCode, 202, run.raw);
  specFields(t, run.body.data, { execution_id: 'string', playbook_id: 'string', status: 'string', started_at: 'timestamp' }, 'POST /api/playbooks/{id}/run');
  const execution = run.body.data.execution_id;
  const done = await eventually(async () => {
    const r = (await call('GET', `/api/playbooks/executions/${execution}`)).body.data;
    return ['completed', 'failed'].includes(r.status) ? r : undefined;
  }, 20_000);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  specFields(t, done, { execution_id: 'string', playbook_id: 'string', playbook_name: 'string', status: 'string', current_step: 'string|null', steps_completed: 'integer', steps_total: 'integer', started_at: 'timestamp', completed_at: 'timestamp', duration_seconds: 'integer' }, 'playbook execution');
  const steps = (await call('GET', `/api/playbooks/executions/${execution}/steps`)).body.data;
  for (const s of steps) specFields(t, s, { step_id: 'string', step_name: 'string', type: 'string', status: 'string', output: 'object', started_at: 'timestamp', completed_at: 'timestamp' }, 'step execution record');
  const first = await call('GET', `/api/actions/executions/${steps[0].output.execution_id}`);
  t.deepEqual(first.body.data.parameters, { text: 'ticket=SEC-1' });

  const missing = await call('POST', `/api/playbooks/${id}/run`, {});
  const failed = await eventually(async () => {
    const r = (await call('GET', `/api/playbooks/executions/${missing.body.data.execution_id}`)).body.data;
    return r.status === 'failed' ? r : undefined;
  }, 20_000);
  t.regex(failed.error.message, /parameters\.ticket/, 'a run without the value fails naming it');

  const exported = await call('GET', `/api/playbooks/${id}/export?format=cacao_v2`);
  t.is(exported.statusCode, 200);
  t.like(exported.body, { type: 'playbook', spec_version: 'cacao-2.0', name: 'triage-critical' });
  const edited = { ...exported.body, id: 'playbook--0b7e2a64-3c1d-4f5e-9a8b-7c6d5e4f3a21', name: 'triage-critical (copy)' };
  const imported = await call('POST', '/api/playbooks/import', edited);
  t.is(imported.statusCode, 201, imported.raw);
  t.is(imported.body.data.playbook.name, 'triage-critical (copy)');
  const clash = await call('POST', '/api/playbooks/import', exported.body);
  t.is(clash.statusCode, 409);
  t.regex(clash.body.error.message, /triage-critical/);
});
