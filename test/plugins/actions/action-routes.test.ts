import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;

test.before(async () => {
  t0 = await createTestApp();
});

test.after.always(async () => {
  await t0?.close();
});

const webhookAction = (overrides: Record<string, unknown> = {}) => ({
  name: 'Block IP at edge',
  type: 'webhook',
  executor: 'webhook',
  description: 'Calls the firewall API',
  parameters: [
    { name: 'ip', type: 'string', required: true, validation: { pattern: '\\d{1,3}(\\.\\d{1,3}){3}' } },
    { name: 'api_key', type: 'secret', required: true, credential: 'fw_key' },
  ],
  config: {
    url: 'https://fw.example.com/block/{{ ip }}',
    method: 'POST',
    headers: { Authorization: 'Bearer {{api_key}}' },
    body_template: '{"ip": "{{ ip }}", "asset": "{{ asset_id }}"}',
  },
  ...overrides,
});

async function countActions(tenantId: string): Promise<number> {
  const a = await t0.ctx.db('actions').where({ tenant_id: tenantId }).count({ n: '*' }).first();
  const v = await t0.ctx.db('action_versions').where({ tenant_id: tenantId }).count({ n: '*' }).first();
  return Number(a!.n) + Number(v!.n);
}

test('create answers 201 with the spec fields; the details GET shows the full reference view', async (t) => {
  const { token } = await t0.tenant();
  const res = await t0.request('POST', '/api/actions', { token, payload: webhookAction() });
  t.is(res.statusCode, 201, res.raw);
  const data = res.body.data;
  t.regex(data.id, /^act_/);
  t.deepEqual(Object.keys(data).sort(), ['created_at', 'executor', 'id', 'name', 'type', 'version']);
  t.like(data, { name: 'Block IP at edge', type: 'webhook', executor: 'webhook', version: '1.0.0' });
  const got = await t0.request('GET', `/api/actions/${data.id}`, { token });
  t.is(got.statusCode, 200);
  t.deepEqual(got.body.data, {
    id: data.id,
    name: 'Block IP at edge',
    type: 'webhook',
    description: 'Calls the firewall API',
    version: '1.0.0',
    executor: 'webhook',
    executor_detail: { type: 'webhook', target: null, method: 'POST' },
    parameters: [
      { name: 'ip', type: 'string', required: true, validation: { pattern: '\\d{1,3}(\\.\\d{1,3}){3}' } },
      { name: 'api_key', type: 'secret', required: true, credential: 'fw_key' },
    ],
    config: webhookAction().config,
    input_mapping: null,
    timeout_seconds: 300,
    retry: { max_attempts: 1, backoff_seconds: 0 },
    enabled: true,
    view: 'reference',
    created_at: data.created_at,
    updated_at: data.created_at,
  });
  t.truthy(got.headers['last-modified']);
});

test('every type/executor pair the rules allow is accepted, with defaults filled in', async (t) => {
  const { token } = await t0.tenant();
  const cases: Array<[string, string, Record<string, unknown>, Record<string, unknown>]> = [
    ['notification', 'local', { channel: 'email', to: ['soc@example.com'], subject: 'Alert {{ target }}', body_template: 'Hello' }, {}],
    ['notification', 'local', { channel: 'chat', url: 'https://chat.example.com/hook', text_template: 'hi' }, { format: 'slack' }],
    ['remediation', 'local', { target: 'block_ip.sh' }, {}],
    ['remediation', 'remote', { target: 'https://soar.example.com/run', input_mapping: { fields: { address: 'ip' } } }, { method: 'POST' }],
    ['remediation', 'agent', { target: 'dc-east', script: 'isolate.ps1' }, {}],
    ['webhook', 'local', { target: 'notify-cmdb' }, {}],
    ['script', 'local', { source: 'return { ok: true };' }, {}],
    ['script', 'agent', { target: 'edge.lab', source: 'return 1;' }, {}],
    ['approval', 'local', {}, { required_approvals: 1, approvers: {}, expires_in_seconds: 86400, on_expiry: 'fail' }],
    ['approval', 'local', { required_approvals: 2, approvers: { scopes: ['actions:execute'] }, expires_in_seconds: 60, on_expiry: 'deny', message: 'Block {{ ip }}?' }, {}],
  ];
  for (const [i, [type, executor, config, defaults]] of cases.entries()) {
    const res = await t0.request('POST', '/api/actions', { token, payload: { name: `pair-${i}`, type, executor, config, parameters: [{ name: 'ip', type: 'string', required: false }] } });
    t.is(res.statusCode, 201, `${type}/${executor}: ${res.raw}`);
    const got = await t0.request('GET', `/api/actions/${res.body.data.id}`, { token });
    t.deepEqual(got.body.data.config, { ...config, ...defaults }, `${type}/${executor}`);
  }
});

test('bad input is a clear 400 and writes nothing', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const base = webhookAction();
  const cases: Array<[Record<string, unknown>, string, string?]> = [
    [{ ...base, type: 'containment' }, 'validation_failed', 'type'],
    [{ ...base, executor: 'ssh' }, 'validation_failed', 'executor'],
    [{ ...base, name: undefined }, 'validation_failed', 'name'],
    [{ ...base, version: '1.0' }, 'validation_failed', 'version'],
    [{ ...base, timeout_seconds: 3601 }, 'validation_failed', 'timeout_seconds'],
    [{ ...base, retry: { max_attempts: 11 } }, 'validation_failed', 'retry.max_attempts'],
    [{ ...base, config: { ...base.config, body_template: '{"x": "{{ nope }}"}' } }, 'unknown_placeholder', 'config.body_template'],
    [{ ...base, config: { ...base.config, headers: { 'X-A': '{{ missing_one }}' } } }, 'unknown_placeholder', 'config.headers.X-A'],
    [{ ...base, config: { ...base.config, url: 'https://{{ ip }}/x' } }, 'invalid_url', 'config.url'],
    [{ ...base, config: { ...base.config, url: 'http://fw.example.com/' } }, 'https_required', 'config.url'],
    [{ ...base, config: { ...base.config, url: 'https://10.1.2.3/' } }, 'url_not_allowed', 'config.url'],
    [{ ...base, config: { ...base.config, url: 'https://169.254.169.254/latest' } }, 'url_not_allowed', 'config.url'],
    [{ ...base, config: { ...base.config, url: 'ftp://x.example.com/' } }, 'invalid_url', 'config.url'],
    [{ ...base, config: { ...base.config, body_template: '{{ ip + 1 }}' } }, 'invalid_placeholder', 'config.body_template'],
    [{ ...base, config: { method: 'POST' } }, 'validation_failed', 'config.url'],
    [{ ...base, config: { ...base.config, headers: { 'X-A': 'a\r\nb' } } }, 'validation_failed', 'config.headers.X-A'],
    [{ ...base, config: { ...base.config, extra: 1 } }, 'validation_failed', 'config.extra'],
    [{ ...base, parameters: [{ name: 'ip', type: 'string', required: true, validation: { pattern: '(a+)+$' } }] }, 'validation_failed', 'parameters.0.validation.pattern'],
    [{ ...base, parameters: [{ name: 'ip', type: 'uuid' }] }, 'validation_failed', 'parameters.0.type'],
    [{ name: 'x', type: 'remediation', executor: 'local', config: { target: '../bin/sh' } }, 'validation_failed', 'config.target'],
    [{ name: 'x', type: 'remediation', executor: 'local', config: { target: 'a/b' } }, 'validation_failed', 'config.target'],
    [{ name: 'x', type: 'remediation', executor: 'local', config: { target: 'a\\b' } }, 'validation_failed', 'config.target'],
    [{ name: 'x', type: 'remediation', executor: 'local', config: { target: 'a\u0000b' } }, 'validation_failed', 'config.target'],
    [{ name: 'x', type: 'remediation', executor: 'local', config: {} }, 'validation_failed', 'config.target'],
    [{ name: 'x', type: 'script', executor: 'local', config: { source: 'x'.repeat(65537) } }, 'validation_failed', 'config.source'],
    [{ name: 'x', type: 'script', executor: 'webhook', config: {} }, 'executor_not_supported', 'executor'],
    [{ name: 'x', type: 'approval', executor: 'remote', config: {} }, 'executor_not_supported', 'executor'],
    [{ name: 'x', type: 'approval', executor: 'local', config: { required_approvals: 11 } }, 'validation_failed', 'config.required_approvals'],
    [{ name: 'x', type: 'approval', executor: 'local', config: { expires_in_seconds: 59 } }, 'validation_failed', 'config.expires_in_seconds'],
    [{ name: 'x', type: 'approval', executor: 'local', config: { on_expiry: 'retry' } }, 'validation_failed', 'config.on_expiry'],
    [{ name: 'x', type: 'approval', executor: 'local', config: { approvers: { scopes: ['root'] } } }, 'validation_failed', 'config.approvers.scopes.0'],
    [{ name: 'x', type: 'notification', executor: 'local', config: { channel: 'email', to: ['not-an-address'], subject: 's', body_template: 'b' } }, 'validation_failed', 'config.to.0'],
    [{ name: 'x', type: 'notification', executor: 'local', config: { channel: 'email', to: ['a@example.com'], subject: 'a\nBcc: x@evil.test', body_template: 'b' } }, 'validation_failed', 'config.subject'],
    [{ name: 'x', type: 'notification', executor: 'local', config: { channel: 'sms' } }, 'validation_failed', 'config.channel'],
    [{ name: 'x', type: 'notification', executor: 'local', config: { channel: 'chat', url: 'https://c.example.com', text_template: '{{ who }}' } }, 'unknown_placeholder', 'config.text_template'],
    [{ name: 'x', type: 'remediation', executor: 'agent', config: { target: 'Bad Agent', script: 'a.sh' } }, 'validation_failed', 'config.target'],
    [{ name: 'x', type: 'remediation', executor: 'agent', config: { target: 'dc1' } }, 'validation_failed', 'config.script'],
    [{ name: 'x', type: 'remediation', executor: 'remote', config: { target: 'http://soar.example.com/' } }, 'https_required', 'config.target'],
    [{ name: 'x', type: 'remediation', executor: 'remote', config: { target: 'https://soar.example.com/', input_mapping: { fields: { a: 'nope' } } } }, 'validation_failed', 'config.input_mapping.fields.a'],
    [{ ...base, unknown: true }, 'validation_failed', 'unknown'],
  ];
  for (const [payload, code, field] of cases) {
    const res = await t0.request('POST', '/api/actions', { token, payload });
    t.is(res.statusCode, 400, JSON.stringify(payload).slice(0, 200));
    t.is(res.body.error.code, code, `${JSON.stringify(payload).slice(0, 200)} ${res.raw}`);
    if (field) t.true(res.body.error.details?.some((d: { field: string }) => d.field === field), `${field}: ${res.raw}`);
  }
  t.is(await countActions(tenantId), 0);
});

test('an allow-listed private address may be used over https; plain http is refused as the client would refuse it', async (t) => {
  const { token } = await t0.tenant();
  const res = await t0.request('POST', '/api/actions', { token, payload: webhookAction({ config: { url: 'https://127.0.0.1:9/x/{{ ip }}' } }) });
  t.is(res.statusCode, 201, res.raw);
  const http = await t0.request('POST', '/api/actions', { token, payload: webhookAction({ name: 'plain-http', config: { url: 'http://127.0.0.1:9/x/{{ ip }}' } }) });
  t.is(http.statusCode, 400, http.raw);
  t.is(http.body.error.code, 'https_required');
});

test('same name in a tenant is 409; another tenant may reuse it', async (t) => {
  const a = await t0.tenant();
  const b = await t0.tenant();
  t.is((await t0.request('POST', '/api/actions', { token: a.token, payload: webhookAction() })).statusCode, 201);
  const dup = await t0.request('POST', '/api/actions', { token: a.token, payload: webhookAction({ description: 'other' }) });
  t.is(dup.statusCode, 409);
  t.is(dup.body.error.code, 'action_exists');
  t.is(await countActions(a.tenantId), 2, 'one action, one version');
  t.is((await t0.request('POST', '/api/actions', { token: b.token, payload: webhookAction() })).statusCode, 201);
});

test('list: type filter, search over name and description with LIKE characters literal, pagination', async (t) => {
  const { token } = await t0.tenant();
  const make = (name: string, type: string, description: string) => {
    const config: Record<string, Record<string, unknown>> = {
      notification: { channel: 'chat', url: 'https://c.example.com/', text_template: 'x' },
      remediation: { target: 'fix.sh' },
      script: { source: 'return 1' },
    };
    return t0.request('POST', '/api/actions', { token, payload: { name, type, executor: 'local', description, config: config[type] } });
  };
  await make('Page on-call', 'notification', 'pages the 100% crew');
  await make('Patch host', 'remediation', 'applies fixes');
  await make('Cleanup_tmp', 'script', 'removes files');
  await make('Cleanupxtmp', 'script', 'also removes');
  const all = await t0.request('GET', '/api/actions', { token });
  t.is(all.statusCode, 200);
  t.is(all.body.meta.total, 4);
  // Newest first; two made in the same millisecond may come in either order, so compare sets and the sort key.
  const names = (list: { body: { data: Array<{ name: string }> } }) => list.body.data.map((a) => a.name).sort();
  t.deepEqual(names(all), ['Cleanup_tmp', 'Cleanupxtmp', 'Page on-call', 'Patch host']);
  const times = all.body.data.map((a: { created_at: string }) => a.created_at);
  t.deepEqual(times, [...times].sort().reverse());
  const scripts = await t0.request('GET', '/api/actions?type=script', { token });
  t.deepEqual(names(scripts), ['Cleanup_tmp', 'Cleanupxtmp']);
  t.deepEqual((await t0.request('GET', '/api/actions?search=cleanup_', { token })).body.data.map((a: { name: string }) => a.name), ['Cleanup_tmp']);
  t.deepEqual((await t0.request('GET', '/api/actions?search=100%25', { token })).body.data.map((a: { name: string }) => a.name), ['Page on-call']);
  t.deepEqual((await t0.request('GET', '/api/actions?search=FIXES', { token })).body.data.map((a: { name: string }) => a.name), ['Patch host']);
  const page2 = await t0.request('GET', '/api/actions?per_page=3&page=2', { token });
  t.deepEqual(page2.body.meta, { total: 4, page: 2, per_page: 3, total_pages: 2 });
  t.is(page2.body.data.length, 1);
  for (const q of ['per_page=101', 'page=0', 'type=BAD TYPE', 'search=', 'nope=1']) {
    t.is((await t0.request('GET', `/api/actions?${q}`, { token })).statusCode, 400, q);
  }
});

test('tenant isolation and scopes', async (t) => {
  const a = await t0.tenant();
  const b = await t0.tenant();
  const id = (await t0.request('POST', '/api/actions', { token: a.token, payload: webhookAction() })).body.data.id;
  t.is((await t0.request('GET', `/api/actions/${id}`, { token: b.token })).statusCode, 404);
  t.is((await t0.request('GET', '/api/actions', { token: b.token })).body.meta.total, 0);
  t.is((await t0.request('GET', '/api/actions/act_00000000000000000000000000', { token: a.token })).statusCode, 404);
  t.is((await t0.request('GET', '/api/actions/not-an-id', { token: a.token })).statusCode, 400);
  const reader = await t0.tenant({ scopes: ['actions:read'] });
  const denied = await t0.request('POST', '/api/actions', { token: reader.token, payload: webhookAction() });
  t.is(denied.statusCode, 403);
  t.is(denied.body.error.code, 'insufficient_scope');
  t.is(await countActions(reader.tenantId), 0);
  t.is((await t0.request('GET', '/api/actions', { token: reader.token })).statusCode, 200);
  const writer = await t0.tenant({ scopes: ['actions:write'] });
  t.is((await t0.request('GET', '/api/actions', { token: writer.token })).statusCode, 403);
  t.is((await t0.request('POST', '/api/actions', { token: null, payload: webhookAction() })).statusCode, 401);
});

test('the catalog hands the run engine the active version, by id, version or name', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const other = await t0.tenant();
  const id = (await t0.request('POST', '/api/actions', { token, payload: webhookAction({ version: '2.1.0', timeout_seconds: 60, retry: { max_attempts: 3, backoff_seconds: 5 } }) })).body.data.id;
  const run = await t0.ctx.services.actions.forRun(tenantId, id);
  t.like(run, { actionId: id, tenantId, name: 'Block IP at edge', view: 'reference', enabled: true, version: '2.1.0', type: 'webhook', timeoutSeconds: 60, retry: { maxAttempts: 3, backoffSeconds: 5 } });
  t.deepEqual(run.executor, { type: 'webhook', method: 'POST' });
  t.regex(run.versionId, /^ver_/);
  t.is((await t0.ctx.services.actions.findByName(tenantId, 'Block IP at edge'))?.actionId, id);
  t.is(await t0.ctx.services.actions.findByName(other.tenantId, 'Block IP at edge'), null);
  t.is((await t0.ctx.services.actions.forRunByVersion(tenantId, id, '2.1.0')).versionId, run.versionId);
  await t.throwsAsync(t0.ctx.services.actions.forRunByVersion(tenantId, id, '9.9.9'), { message: /not found/ });
  await t.throwsAsync(t0.ctx.services.actions.forRun(other.tenantId, id), { message: /not found/ });
});

test('the OpenAPI document describes the catalog and credential routes', async (t) => {
  const doc = (await t0.request('GET', '/api/openapi.json', { token: null })).body;
  for (const [path, method] of [
    ['/api/actions', 'get'], ['/api/actions', 'post'], ['/api/actions/{id}', 'get'], ['/api/actions/definitions', 'post'],
    ['/api/actions/definitions/{id}/versions', 'post'], ['/api/actions/definitions/{id}/versions', 'get'], ['/api/actions/definitions/{id}', 'patch'],
    ['/api/credentials', 'post'], ['/api/credentials/{name}', 'put'], ['/api/credentials/{name}', 'delete'],
  ]) {
    t.truthy(doc.paths?.[path]?.[method], `${method} ${path}`);
  }
});
