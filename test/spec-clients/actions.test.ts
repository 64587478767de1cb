import test from 'ava';
import { eventually } from '../_helpers/harness/eventually.ts';
import { createTestApp, type TestApp } from '../_helpers/harness/test-app.ts';
import { saysWhatToAdd, specFields, specListMeta } from '../_helpers/spec-clients/spec-fields.ts';

// Actions as a spec-only client uses them. The spec leaves a local executor's `config`
// "executor-specific": without it the 400 names the field to add (config.source for a
// script); the trigger answers 202 `pending` where the spec's table shows `running`
// (docs/spec-differences.md).
let t0: TestApp;
let token: string;
test.before(async () => {
  t0 = await createTestApp();
  ({ token } = await t0.tenant());
  t0.ctx.background.actions.start();
});
test.after.always(async () => {
  await t0?.ctx.background.actions.stop();
  await t0?.close();
});

const call = (method: string, url: string, payload?: unknown) => t0.request(method, url, { token, payload: payload as object });
const REFERENCE_VIEW = { id: 'string', name: 'string', type: 'string', description: 'string', version: 'string', executor: 'string', parameters: 'array', config: 'object', created_at: 'timestamp' } as const;

test('create → read → list → trigger → executions → execution record with the spec\'s fields only', async (t) => {
  const spec = { name: 'tag-host', type: 'script', description: 'tags a host', executor: 'local', parameters: [{ name: 'host', type: 'string', required: true }] };
  saysWhatToAdd(t, await call('POST', '/api/actions', { ...spec, config: {} }), 400, 'validation_failed', /config\.source is required/);
  const created = await call('POST', '/api/actions', { ...spec, config: { source: 'return { tagged: params.host };' } });
  t.is(created.statusCode, 201, created.raw);
  specFields(t, created.body.data, { id: 'string', name: 'string', type: 'string', executor: 'string', version: 'string', created_at: 'timestamp' }, 'POST /api/actions');
  t.is(created.body.data.version, '1.0.0', 'a new action without an explicit version reports 1.0.0');
  const id = created.body.data.id;

  specFields(t, (await call('GET', `/api/actions/${id}`)).body.data, REFERENCE_VIEW, 'GET /api/actions/{id}');
  const list = await call('GET', '/api/actions?type=script&search=tags&page=1&per_page=20');
  t.is(list.statusCode, 200, list.raw);
  specListMeta(t, list.body, 'GET /api/actions');
  t.deepEqual(list.body.data.map((a: { id: string }) => a.id), [id]);
  specFields(t, list.body.data[0], REFERENCE_VIEW, 'action reference view');

  const triggered = await call('POST', `/api/actions/${id}/trigger`, { parameters: { host: 'db-1' }, sandbox: false, dry_run: false });
  t.is(triggered.statusCode, 202, triggered.raw);
  specFields(t, triggered.body.data, { execution_id: 'string', action_id: 'string', status: 'string', started_at: 'timestamp|null' }, 'POST /api/actions/{id}/trigger');
  const execution = triggered.body.data.execution_id;
  const done = await eventually(async () => {
    const r = (await call('GET', `/api/actions/executions/${execution}`)).body.data;
    return ['completed', 'failed'].includes(r.status) ? r : undefined;
  }, 20_000);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  specFields(t, done, { execution_id: 'string', action_id: 'string', action_name: 'string', status: 'string', target: 'string|null', parameters: 'object', output: 'object', logs: 'array', started_at: 'timestamp', completed_at: 'timestamp', duration_seconds: 'integer' }, 'execution record');

  const executions = await call('GET', `/api/actions/${id}/executions?page=1&per_page=20`);
  specListMeta(t, executions.body, 'GET /api/actions/{id}/executions');
  specFields(t, executions.body.data[0], { execution_id: 'string', status: 'string', parameters: 'object', output: 'object', started_at: 'timestamp', completed_at: 'timestamp', duration_seconds: 'integer' }, 'executions item');
  const dry = await call('POST', `/api/actions/${id}/trigger`, { parameters: { host: 'db-2' }, dry_run: true });
  t.true([200, 202].includes(dry.statusCode), dry.raw);
});

test('definitions: register → enable → versions → execute in the sandbox → run logs, with the spec\'s authoring fields', async (t) => {
  const definition = {
    name: 'block-ip', version: '1.0.0', type: 'containment', description: 'Blocks an address',
    parameters: [
      { name: 'ip', type: 'string', required: true, validation: { pattern: '^[0-9.]+$' } },
      { name: 'duration_hours', type: 'integer', required: false, default: 24, validation: { min: 1, max: 720 } },
    ],
    executor: { type: 'local', target: 'block.sh' }, timeout_seconds: 30, retry: { max_attempts: 3, backoff_seconds: 5 }, enabled: false,
  };
  const registered = await call('POST', '/api/actions/definitions', definition);
  t.is(registered.statusCode, 201, registered.raw);
  t.like(registered.body, { name: 'block-ip', version: '1.0.0', status: 'registered' });
  const id = registered.body.id;
  t.is((await call('POST', '/api/actions/definitions', definition)).statusCode, 409, 'a name that exists in the tenant');
  const enabled = await call('PATCH', `/api/actions/definitions/${id}`, { enabled: true });
  t.is(enabled.statusCode, 200, enabled.raw);
  const versions = await call('GET', `/api/actions/definitions/${id}/versions`);
  t.is(versions.statusCode, 200);
  t.deepEqual(versions.body.data.map((v: { version: string }) => v.version), ['1.0.0']);
  const bad = await call('POST', `/api/actions/${id}/execute`, { sandbox: true, parameters: { ip: 'not-an-ip' } });
  t.is(bad.statusCode, 400);
  t.true(bad.body.error.details.some((d: { field: string }) => d.field === 'parameters.ip'));
  const runs = await call('GET', `/api/actions/${id}/runs`);
  t.is(runs.statusCode, 200, runs.raw);
  t.true(Array.isArray(runs.body.data));
});
