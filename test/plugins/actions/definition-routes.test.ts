import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;

test.before(async () => {
  t0 = await createTestApp();
});

test.after.always(async () => {
  await t0?.close();
});

const definition = (overrides: Record<string, unknown> = {}) => ({
  name: 'block-ip',
  version: '1.0.0',
  type: 'containment',
  description: 'Block an IP at the firewall',
  parameters: [
    { name: 'target_ip', type: 'string', required: true, validation: { pattern: '\\d{1,3}(\\.\\d{1,3}){3}' } },
    { name: 'duration_hours', type: 'integer', required: false, default: 24, validation: { min: 1, max: 720 } },
    { name: 'api_key', type: 'secret', required: true, credential: 'firewall_api_key' },
  ],
  executor: { type: 'remote', target: 'https://firewall.example.com/api/block', method: 'POST' },
  input_mapping: { fields: { ip: 'target_ip', hours: { param: 'duration_hours' }, source: { value: 'rampart' }, key: 'api_key' } },
  timeout_seconds: 120,
  retry: { max_attempts: 3, backoff_seconds: 10 },
  ...overrides,
});

async function rows(tenantId: string): Promise<number> {
  const a = await t0.ctx.db('actions').where({ tenant_id: tenantId }).count({ n: '*' }).first();
  const v = await t0.ctx.db('action_versions').where({ tenant_id: tenantId }).count({ n: '*' }).first();
  return Number(a!.n) * 1000 + Number(v!.n);
}

test('register answers the spec\'s unwrapped {id, name, version, status}; disabled by default; listed with the others', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const res = await t0.request('POST', '/api/actions/definitions', { token, payload: definition() });
  t.is(res.statusCode, 201, res.raw);
  t.deepEqual(Object.keys(res.body).sort(), ['id', 'name', 'status', 'version']);
  t.like(res.body, { name: 'block-ip', version: '1.0.0', status: 'registered' });
  const got = (await t0.request('GET', `/api/actions/${res.body.id}`, { token })).body.data;
  t.like(got, {
    name: 'block-ip', type: 'containment', version: '1.0.0', executor: 'remote', enabled: false, view: 'definition', timeout_seconds: 120,
    executor_detail: { type: 'remote', target: 'https://firewall.example.com/api/block', method: 'POST' },
    retry: { max_attempts: 3, backoff_seconds: 10 }, config: {},
  });
  t.deepEqual(got.input_mapping, definition().input_mapping);
  const list = await t0.request('GET', '/api/actions?type=containment', { token });
  t.deepEqual(list.body.data.map((a: { id: string }) => a.id), [res.body.id]);
  const run = await t0.ctx.services.actions.forRun(tenantId, res.body.id);
  t.like(run, { enabled: false, view: 'definition', executor: { type: 'remote', target: 'https://firewall.example.com/api/block', method: 'POST' } });
});

test('a definition whose name exists (either view) is 409 and writes nothing', async (t) => {
  const { token, tenantId } = await t0.tenant();
  t.is((await t0.request('POST', '/api/actions/definitions', { token, payload: definition() })).statusCode, 201);
  const before = await rows(tenantId);
  const dup = await t0.request('POST', '/api/actions/definitions', { token, payload: definition({ version: '2.0.0' }) });
  t.is(dup.statusCode, 409);
  t.is(dup.body.error.code, 'action_exists');
  await t0.request('POST', '/api/actions', { token, payload: { name: 'ref', type: 'script', executor: 'local', config: { source: 'return 1' } } });
  const dup2 = await t0.request('POST', '/api/actions/definitions', { token, payload: definition({ name: 'ref' }) });
  t.is(dup2.statusCode, 409);
  t.is(await rows(tenantId), before + 1001);
});

test('bad definitions are a clear 400 and write nothing', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const d = definition();
  const cases: Array<[Record<string, unknown>, string, string]> = [
    [{ ...d, version: undefined }, 'validation_failed', 'version'],
    [{ ...d, version: 'v1' }, 'validation_failed', 'version'],
    [{ ...d, type: 'Contain Ment' }, 'validation_failed', 'type'],
    [{ ...d, timeout_seconds: 3601 }, 'validation_failed', 'timeout_seconds'],
    [{ ...d, retry: { max_attempts: 0, backoff_seconds: 1 } }, 'validation_failed', 'retry.max_attempts'],
    [{ ...d, retry: { max_attempts: 2, backoff_seconds: 3601 } }, 'validation_failed', 'retry.backoff_seconds'],
    [{ ...d, executor: { type: 'webhook', target: 'https://x.example.com' } }, 'validation_failed', 'executor.type'],
    [{ ...d, executor: { type: 'remote', target: 'http://firewall.example.com/' } }, 'https_required', 'executor.target'],
    [{ ...d, executor: { type: 'remote', target: 'https://192.168.0.10/' } }, 'url_not_allowed', 'executor.target'],
    [{ ...d, executor: { type: 'remote', target: 'https://[fd00::1]/' } }, 'url_not_allowed', 'executor.target'],
    [{ ...d, executor: { type: 'remote' } }, 'validation_failed', 'executor.target'],
    [{ ...d, executor: { type: 'local', target: '../../bin/rm' }, input_mapping: undefined }, 'validation_failed', 'executor.target'],
    [{ ...d, executor: { type: 'local', target: 'ok.sh', method: 'POST' }, input_mapping: undefined }, 'validation_failed', 'executor.method'],
    [{ ...d, executor: { type: 'local', target: 'ok.sh' } }, 'validation_failed', 'input_mapping'],
    [{ ...d, executor: { type: 'agent', target: 'dc-1' }, input_mapping: undefined }, 'validation_failed', 'config.script'],
    [{ ...d, input_mapping: { fields: { ip: 'no_such_param' } } }, 'validation_failed', 'input_mapping.fields.ip'],
    [{ ...d, input_mapping: { fields: { ip: { param: 'x', value: 1 } } } }, 'validation_failed', 'input_mapping.fields.ip'],
    [{ ...d, input_mapping: { map: {} } }, 'validation_failed', 'input_mapping.map'],
    [{ ...d, parameters: [{ name: 'p', type: 'string', validation: { pattern: '(\\w+\\s?)*$' } }], input_mapping: undefined }, 'validation_failed', 'parameters.0.validation.pattern'],
    [{ ...d, parameters: [{ name: 'p', type: 'string', validation: { pattern: '(a|a)*' } }], input_mapping: undefined }, 'validation_failed', 'parameters.0.validation.pattern'],
    [{ ...d, parameters: [{ name: 'p', type: 'integer', validation: { min: 9, max: 1 } }], input_mapping: undefined }, 'validation_failed', 'parameters.0.validation'],
    [{ ...d, type: 'script', executor: { type: 'local' }, input_mapping: undefined }, 'validation_failed', 'config.source'],
    [{ ...d, type: 'approval', executor: { type: 'agent', target: 'x' }, input_mapping: undefined }, 'executor_not_supported', 'executor'],
    [{ ...d, config: { target: 'https://other.example.com' } }, 'validation_failed', 'config.target'],
    [{ ...d, enabled: 'yes' }, 'validation_failed', 'enabled'],
  ];
  for (const [payload, code, field] of cases) {
    const res = await t0.request('POST', '/api/actions/definitions', { token, payload });
    t.is(res.statusCode, 400, `${JSON.stringify(payload).slice(0, 160)} ${res.raw}`);
    t.is(res.body.error.code, code, `${field}: ${res.raw}`);
    t.true(res.body.error.details?.some((x: { field: string }) => x.field === field), `${field}: ${res.raw}`);
  }
  t.is(await rows(tenantId), 0);
});

test('local, agent and script definitions with their config', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const local = await t0.request('POST', '/api/actions/definitions', { token, payload: definition({ name: 'l', executor: { type: 'local', target: 'block_ip.sh' }, input_mapping: undefined, enabled: true }) });
  t.is(local.statusCode, 201, local.raw);
  const agent = await t0.request('POST', '/api/actions/definitions', { token, payload: definition({ name: 'a', executor: { type: 'agent', target: 'dc-east' }, config: { script: 'block.ps1' }, input_mapping: undefined }) });
  t.is(agent.statusCode, 201, agent.raw);
  const script = await t0.request('POST', '/api/actions/definitions', { token, payload: definition({ name: 's', type: 'script', executor: { type: 'local' }, config: { source: 'return params.target_ip;' }, input_mapping: undefined }) });
  t.is(script.statusCode, 201, script.raw);
  t.like(await t0.ctx.services.actions.forRun(tenantId, local.body.id), { enabled: true, executor: { type: 'local', target: 'block_ip.sh' }, config: {} });
  t.like(await t0.ctx.services.actions.forRun(tenantId, agent.body.id), { executor: { type: 'agent', target: 'dc-east' }, config: { script: 'block.ps1' } });
  t.like(await t0.ctx.services.actions.forRun(tenantId, script.body.id), { type: 'script', executor: { type: 'local' }, config: { source: 'return params.target_ip;' } });
});

test('versions: higher registers and becomes active, not higher is 409, newest first, PATCH goes back', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const id = (await t0.request('POST', '/api/actions/definitions', { token, payload: definition() })).body.id;
  const add = (version: string, extra: Record<string, unknown> = {}) =>
    t0.request('POST', `/api/actions/definitions/${id}/versions`, { token, payload: { ...definition({ version, ...extra }), name: undefined } });
  t.is((await add('1.10.0', { description: 'v1.10' })).statusCode, 201);
  const v2 = await add('1.2.0');
  t.is(v2.statusCode, 409);
  t.is(v2.body.error.code, 'version_not_higher');
  t.is((await add('1.10.0')).body.error.code, 'version_not_higher');
  const v3 = await add('2.0.0', { timeout_seconds: 30 });
  t.is(v3.statusCode, 201);
  t.deepEqual(v3.body, { id, name: 'block-ip', version: '2.0.0', status: 'registered' });
  t.is((await t0.request('POST', `/api/actions/definitions/${id}/versions`, { token, payload: definition({ version: '3.0.0', name: 'other-name' }) })).statusCode, 400);
  t.is((await add('3.0.0', { executor: { type: 'remote', target: 'http://x.example.com' } })).statusCode, 400);
  const list = await t0.request('GET', `/api/actions/definitions/${id}/versions`, { token });
  t.is(list.statusCode, 200);
  t.deepEqual(list.body.data.map((v: { version: string; active: boolean }) => [v.version, v.active]), [['2.0.0', true], ['1.10.0', false], ['1.0.0', false]]);
  t.is(list.body.meta.total, 3);
  t.is(list.body.data[0].timeout_seconds, 30);
  t.is((await t0.ctx.services.actions.forRun(tenantId, id)).version, '2.0.0');

  const back = await t0.request('PATCH', `/api/actions/definitions/${id}`, { token, payload: { active_version: '1.10.0', enabled: true } });
  t.is(back.statusCode, 200);
  t.like(back.body.data, { version: '1.10.0', description: 'v1.10', enabled: true, view: 'definition' });
  t.like(await t0.ctx.services.actions.forRun(tenantId, id), { version: '1.10.0', enabled: true });
  const again = await t0.request('GET', `/api/actions/definitions/${id}/versions`, { token });
  t.deepEqual(again.body.data.map((v: { active: boolean }) => v.active), [false, true, false]);
  t.is((await add('2.0.1')).statusCode, 201, 'higher than the newest, not than the active one');
  t.is((await add('2.0.1')).statusCode, 409);

  const unknown = await t0.request('PATCH', `/api/actions/definitions/${id}`, { token, payload: { active_version: '9.9.9' } });
  t.is(unknown.statusCode, 400);
  t.is(unknown.body.error.code, 'unknown_version');
  t.is(unknown.body.error.details[0].field, 'active_version');
  t.is((await t0.request('PATCH', `/api/actions/definitions/${id}`, { token, payload: {} })).statusCode, 400);
  t.is((await t0.request('PATCH', `/api/actions/definitions/${id}`, { token, payload: { enabled: false } })).body.data.enabled, false);
  t.is((await t0.ctx.services.actions.forRunByVersion(tenantId, id, '1.0.0')).version, '1.0.0');
});

test('reference-view actions: versions listed, but new versions and PATCH are 409 not_a_definition', async (t) => {
  const { token } = await t0.tenant();
  const id = (await t0.request('POST', '/api/actions', { token, payload: { name: 'r', type: 'script', executor: 'local', config: { source: 'return 1' } } })).body.data.id;
  const list = await t0.request('GET', `/api/actions/definitions/${id}/versions`, { token });
  t.deepEqual(list.body.data.map((v: { version: string; active: boolean }) => [v.version, v.active]), [['1.0.0', true]]);
  const patch = await t0.request('PATCH', `/api/actions/definitions/${id}`, { token, payload: { enabled: false } });
  t.is(patch.statusCode, 409);
  t.is(patch.body.error.code, 'not_a_definition');
  const add = await t0.request('POST', `/api/actions/definitions/${id}/versions`, { token, payload: { ...definition({ version: '2.0.0' }), name: undefined } });
  t.is(add.statusCode, 409);
});

test('tenant isolation (404) and scopes (403) on every definition route', async (t) => {
  const a = await t0.tenant();
  const b = await t0.tenant();
  const id = (await t0.request('POST', '/api/actions/definitions', { token: a.token, payload: definition() })).body.id;
  const before = await rows(a.tenantId);
  for (const [method, url, payload] of [
    ['GET', `/api/actions/definitions/${id}/versions`],
    ['POST', `/api/actions/definitions/${id}/versions`, { ...definition({ version: '2.0.0' }), name: undefined }],
    ['PATCH', `/api/actions/definitions/${id}`, { enabled: true }],
  ] as Array<[string, string, unknown?]>) {
    const res = await t0.request(method, url, { token: b.token, payload });
    t.is(res.statusCode, 404, `${method} ${url}`);
  }
  const reader = await t0.tenant({ scopes: ['actions:read', 'actions:execute'] });
  for (const [method, url, payload] of [
    ['POST', '/api/actions/definitions', definition()],
    ['POST', `/api/actions/definitions/${id}/versions`, { ...definition({ version: '2.0.0' }), name: undefined }],
    ['PATCH', `/api/actions/definitions/${id}`, { enabled: true }],
  ] as Array<[string, string, unknown]>) {
    t.is((await t0.request(method, url, { token: reader.token, payload })).statusCode, 403, `${method} ${url}`);
  }
  t.is(await rows(a.tenantId), before);
  t.is(await rows(reader.tenantId), 0);
});
