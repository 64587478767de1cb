import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;

test.before(async () => {
  t0 = await createTestApp();
});

test.after.always(async () => {
  await t0?.close();
});

/** A tenant with one reference action (`notify`) to refer to. */
async function tenantWithAction(options: Parameters<TestApp['tenant']>[0] = {}) {
  const who = await t0.tenant(options);
  const res = await t0.request('POST', '/api/actions', { token: who.token, payload: { name: 'notify', type: 'script', executor: 'local', config: { source: 'return 1' } } });
  if (res.statusCode !== 201) throw new Error(res.raw);
  return { ...who, actionId: res.body.data.id as string };
}

const playbook = (overrides: Record<string, unknown> = {}) => ({
  name: 'contain-critical',
  version: '1.0.0',
  description: 'Contain hosts with critical findings',
  trigger: { event: 'finding.new', conditions: { severity: { gte: 'high' } } },
  steps: [
    { id: 'tell', name: 'Tell the team', type: 'action', action_ref: 'notify', parameters: { message: 'New: {{ finding.title }}' }, on_success: 'check' },
    { id: 'check', name: 'Critical?', type: 'condition', if: { 'finding.severity': 'critical' }, on_true: 'again', on_false: null },
    { id: 'again', name: 'Tell again', type: 'action', action_ref: 'notify', parameters: { message: '{{ steps.tell.output.status }}' } },
  ],
  tags: ['containment', 'critical'],
  ...overrides,
});

async function rows(tenantId: string): Promise<string> {
  const count = async (table: string) => Number((await t0.ctx.db(table).where({ tenant_id: tenantId }).count({ n: '*' }).first())!.n);
  return `${await count('playbooks')}/${await count('playbook_versions')}/${await count('playbook_tags')}`;
}

test('create answers 201 {id, name, version, step_count, created_at}; GET is the full definition with defaults; enabled at once', async (t) => {
  const { token } = await tenantWithAction();
  const res = await t0.request('POST', '/api/playbooks', { token, payload: playbook() });
  t.is(res.statusCode, 201, res.raw);
  t.deepEqual(Object.keys(res.body.data).sort(), ['created_at', 'id', 'name', 'step_count', 'version']);
  t.like(res.body.data, { name: 'contain-critical', version: '1.0.0', step_count: 3 });
  t.regex(res.body.data.id, /^pbk_[0-9A-Z]{26}$/);
  const got = await t0.request('GET', `/api/playbooks/${res.body.data.id}`, { token });
  t.is(got.statusCode, 200);
  t.deepEqual(Object.keys(got.body.data).sort(), ['created_at', 'description', 'enabled', 'id', 'name', 'on_failure', 'parameters', 'step_count', 'steps', 'tags', 'timeout_minutes', 'trigger', 'updated_at', 'version']);
  t.like(got.body.data, { on_failure: 'abort', timeout_minutes: 60, enabled: true, parameters: {}, tags: ['containment', 'critical'] });
  t.deepEqual(got.body.data.trigger, playbook().trigger);
  t.deepEqual(got.body.data.steps, playbook().steps);
  const minimal = await t0.request('POST', '/api/playbooks', { token, payload: { name: 'm', version: '0.1.0', trigger: { event: 'manual' }, steps: [{ id: 's1', type: 'action', action_ref: 'notify' }] } });
  t.is(minimal.statusCode, 201, minimal.raw);
  const m = (await t0.request('GET', `/api/playbooks/${minimal.body.data.id}`, { token })).body.data;
  t.deepEqual(m.steps, [{ id: 's1', name: 's1', type: 'action', action_ref: 'notify', parameters: {} }]);
  t.deepEqual(m.trigger, { event: 'manual', conditions: {} });
  t.like(m, { description: '', tags: [] });
});

test('list: exact item fields, newest first, search over name and description, tag, pagination', async (t) => {
  const { token } = await tenantWithAction();
  const ids: string[] = [];
  for (const [name, description, tags] of [['alpha', 'Block the IP', ['net']], ['beta', 'Open a ticket', ['ticket', 'net']], ['gamma', 'nothing 100%', []]] as const) {
    const res = await t0.request('POST', '/api/playbooks', { token, payload: playbook({ name, description, tags }) });
    t.is(res.statusCode, 201, res.raw);
    ids.push(res.body.data.id);
  }
  const all = await t0.request('GET', '/api/playbooks', { token });
  t.is(all.statusCode, 200);
  t.deepEqual(all.body.data.map((p: { id: string }) => p.id), [...ids].reverse());
  t.deepEqual(Object.keys(all.body.data[0]).sort(), ['created_at', 'description', 'enabled', 'id', 'name', 'step_count', 'tags', 'trigger', 'updated_at', 'version']);
  t.like(all.body.meta, { total: 3, page: 1, per_page: 20, total_pages: 1 });
  const names = async (query: string) => (await t0.request('GET', `/api/playbooks?${query}`, { token })).body.data.map((p: { name: string }) => p.name);
  t.deepEqual(await names('search=TICKET'), ['beta']);
  t.deepEqual(await names('search=alp'), ['alpha']);
  t.deepEqual(await names('search=100%25'), ['gamma']);
  t.deepEqual(await names('search=10_'), []);
  t.deepEqual(await names('tag=net'), ['beta', 'alpha']);
  t.deepEqual(await names('tag=Net'), []);
  t.deepEqual(await names('tag=net&search=block'), ['alpha']);
  const page2 = await t0.request('GET', '/api/playbooks?per_page=2&page=2', { token });
  t.deepEqual(page2.body.data.map((p: { name: string }) => p.name), ['alpha']);
  t.like(page2.body.meta, { total: 3, page: 2, per_page: 2, total_pages: 2 });
  t.is((await t0.request('GET', '/api/playbooks?per_page=101', { token })).statusCode, 400);
  t.is((await t0.request('GET', '/api/playbooks?unknown=1', { token })).statusCode, 400);
});

test('PUT registers a higher version that becomes active; earlier ones are listed; not higher is 409 and writes nothing', async (t) => {
  const { token, tenantId } = await tenantWithAction();
  const id = (await t0.request('POST', '/api/playbooks', { token, payload: playbook() })).body.data.id;
  const put = (payload: Record<string, unknown>) => t0.request('PUT', `/api/playbooks/${id}`, { token, payload });
  const v2 = await put({ ...playbook({ version: '1.10.0', description: 'second', tags: ['second'] }), name: undefined });
  t.is(v2.statusCode, 200, v2.raw);
  t.like(v2.body.data, { id, name: 'contain-critical', version: '1.10.0', description: 'second', enabled: true });
  const before = await rows(tenantId);
  for (const version of ['1.10.0', '1.9.9', '1.2.0']) {
    const res = await put(playbook({ version }));
    t.is(res.statusCode, 409);
    t.like(res.body.error, { code: 'version_not_higher', newest_version: '1.10.0' });
  }
  t.is(await rows(tenantId), before);
  const versions = await t0.request('GET', `/api/playbooks/${id}/versions`, { token });
  t.is(versions.statusCode, 200);
  t.deepEqual(versions.body.data.map((v: { version: string; active: boolean }) => [v.version, v.active]), [['1.10.0', true], ['1.0.0', false]]);
  t.is(versions.body.data[1].description, 'Contain hosts with critical findings');
  t.is(versions.body.data[1].steps.length, 3);
  t.like(versions.body.meta, { total: 2 });
  const names = async (query: string) => (await t0.request('GET', `/api/playbooks?${query}`, { token })).body.data.map((p: { version: string }) => p.version);
  t.deepEqual(await names('tag=second'), ['1.10.0']);
  t.deepEqual(await names('tag=containment'), []);
  // A new name renames; a name another playbook holds is 409.
  await t0.request('POST', '/api/playbooks', { token, payload: playbook({ name: 'other' }) });
  const clash = await put(playbook({ name: 'other', version: '2.0.0' }));
  t.is(clash.statusCode, 409);
  t.is(clash.body.error.code, 'playbook_exists');
  const renamed = await put(playbook({ name: 'renamed', version: '2.0.0' }));
  t.like(renamed.body.data, { name: 'renamed', version: '2.0.0' });
});

test('PATCH {enabled} disables and enables; the trigger lookup follows; PATCH validates its payload', async (t) => {
  const { token, tenantId } = await tenantWithAction();
  const id = (await t0.request('POST', '/api/playbooks', { token, payload: playbook() })).body.data.id;
  const live = async () => (await t0.ctx.services.playbooks.enabledForEvent(tenantId, 'finding.new')).map((p) => p.playbookId);
  t.deepEqual(await live(), [id]);
  const off = await t0.request('PATCH', `/api/playbooks/${id}`, { token, payload: { enabled: false } });
  t.is(off.statusCode, 200, off.raw);
  t.false(off.body.data.enabled);
  t.deepEqual(await live(), []);
  t.false((await t0.ctx.services.playbooks.forRun(tenantId, id)).enabled);
  t.true((await t0.request('PATCH', `/api/playbooks/${id}`, { token, payload: { enabled: true } })).body.data.enabled);
  t.deepEqual(await live(), [id]);
  for (const payload of [{}, { enabled: 'maybe' }, { enabled: true, name: 'x' }]) {
    t.is((await t0.request('PATCH', `/api/playbooks/${id}`, { token, payload })).statusCode, 400);
  }
});

test('DELETE answers 204; the playbook leaves GET, lists and triggers, its name is free; its versions still serve runs', async (t) => {
  const { token, tenantId } = await tenantWithAction();
  const id = (await t0.request('POST', '/api/playbooks', { token, payload: playbook() })).body.data.id;
  const versionId = (await t0.ctx.services.playbooks.forRun(tenantId, id)).versionId;
  const del = await t0.request('DELETE', `/api/playbooks/${id}`, { token });
  t.is(del.statusCode, 204);
  t.is(del.raw, '');
  t.is((await t0.request('GET', `/api/playbooks/${id}`, { token })).statusCode, 404);
  t.is((await t0.request('GET', `/api/playbooks/${id}/versions`, { token })).statusCode, 404);
  t.is((await t0.request('PUT', `/api/playbooks/${id}`, { token, payload: playbook({ version: '2.0.0' }) })).statusCode, 404);
  t.is((await t0.request('PATCH', `/api/playbooks/${id}`, { token, payload: { enabled: true } })).statusCode, 404);
  t.is((await t0.request('DELETE', `/api/playbooks/${id}`, { token })).statusCode, 404);
  t.deepEqual((await t0.request('GET', '/api/playbooks', { token })).body.data, []);
  t.deepEqual(await t0.ctx.services.playbooks.enabledForEvent(tenantId, 'finding.new'), []);
  const kept = await t0.ctx.services.playbooks.byVersionId(tenantId, versionId);
  t.like(kept, { playbookId: id, name: 'contain-critical', enabled: false });
  const again = await t0.request('POST', '/api/playbooks', { token, payload: playbook() });
  t.is(again.statusCode, 201, again.raw);
  t.not(again.body.data.id, id);
});

test('the same name in the tenant is 409 playbook_exists and writes nothing; another tenant may use it', async (t) => {
  const { token, tenantId } = await tenantWithAction();
  t.is((await t0.request('POST', '/api/playbooks', { token, payload: playbook() })).statusCode, 201);
  const before = await rows(tenantId);
  const dup = await t0.request('POST', '/api/playbooks', { token, payload: playbook({ version: '9.0.0' }) });
  t.is(dup.statusCode, 409);
  t.is(dup.body.error.code, 'playbook_exists');
  t.is(await rows(tenantId), before);
  const other = await tenantWithAction();
  t.is((await t0.request('POST', '/api/playbooks', { token: other.token, payload: playbook() })).statusCode, 201);
});

const steps = () => playbook().steps as Array<Record<string, unknown>>;
const withStep = (i: number, changes: Record<string, unknown>) => steps().map((s, j) => (j === i ? { ...s, ...changes } : s));

test('every bad input of the issue is a 400 naming the culprit, on POST and PUT, and writes nothing', async (t) => {
  const { token, tenantId } = await tenantWithAction();
  const id = (await t0.request('POST', '/api/playbooks', { token, payload: playbook({ name: 'existing' }) })).body.data.id;
  const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ['cycle', playbook({ steps: withStep(2, { on_success: 'tell' }) }), 'invalid_playbook', /^steps\.2\.on_success$/],
    ['dangling on_success', playbook({ steps: withStep(0, { on_success: 'nowhere' }) }), 'invalid_playbook', /^steps\.0\.on_success$/],
    ['dangling on_true', playbook({ steps: withStep(1, { on_true: 'nowhere' }) }), 'invalid_playbook', /^steps\.1\.on_true$/],
    ['unknown action_ref', playbook({ steps: withStep(2, { action_ref: 'no-such-action' }) }), 'unknown_action_ref', /^steps\.2\.action_ref$/],
    ['unregistered pinned version', playbook({ steps: withStep(0, { action_ref: 'notify@2.0.0' }) }), 'unknown_action_ref', /^steps\.0\.action_ref$/],
    ['unknown action id', playbook({ steps: withStep(0, { action_ref: 'act_01JD3AAAAAAAAAAAAAAAAAAAAA' }) }), 'unknown_action_ref', /^steps\.0\.action_ref$/],
    ['duplicate step id', playbook({ steps: withStep(2, { id: 'tell' }) }), 'invalid_playbook', /^steps\.2\.id$/],
    ['a step id with a space', playbook({ steps: withStep(2, { id: 'tell again' }) }), 'invalid_playbook', /^steps\.2\.id$/],
    ['invalid version', playbook({ version: '1.0' }), 'validation_failed', /^version$/],
    ['version with a v', playbook({ version: 'v1.0.0' }), 'validation_failed', /^version$/],
    ['timeout_minutes 0', playbook({ timeout_minutes: 0 }), 'validation_failed', /^timeout_minutes$/],
    ['timeout_minutes 1441', playbook({ timeout_minutes: 1441 }), 'validation_failed', /^timeout_minutes$/],
    ['malformed trigger condition', playbook({ trigger: { event: 'finding.new', conditions: { severity: { between: [1, 2] } } } }), 'invalid_playbook', /^trigger\.conditions/],
    ['malformed step condition', playbook({ steps: withStep(1, { if: { 'finding.severity': { gte: ['high'] } } }) }), 'invalid_playbook', /^steps\.1\.if/],
    ['condition on an unknown root', playbook({ steps: withStep(1, { if: { 'nothing.here': 1 } }) }), 'invalid_playbook', /^steps\.1\.if/],
    ['condition on a step that does not exist', playbook({ steps: withStep(1, { if: { 'steps.ghost.output.x': 1 } }) }), 'invalid_playbook', /^steps\.1\.if/],
    ['unknown placeholder root', playbook({ steps: withStep(0, { parameters: { message: '{{ secrets.key }}' } }) }), 'invalid_playbook', /^steps\.0\.parameters/],
    ['a later step\'s output', playbook({ steps: withStep(0, { parameters: { message: '{{ steps.again.output.status }}' } }) }), 'invalid_playbook', /^steps\.0\.parameters$/],
    ['finding.* on a scan trigger', playbook({ trigger: { event: 'scan.completed', conditions: {} } }), 'invalid_playbook', /^steps\.0\.parameters$/],
    ['a malformed placeholder', playbook({ steps: withStep(0, { parameters: { message: '{{ finding.title' } }) }), 'invalid_playbook', /^steps\.0\.parameters$/],
    ['unreachable step', playbook({ steps: withStep(0, { on_success: null }) }), 'invalid_playbook', /^steps\.[12]/],
    ['a parameter the declared list lacks', playbook({ parameters: { host: 'h' }, steps: withStep(0, { parameters: { message: '{{ parameters.ip }}' } }) }), 'invalid_playbook', /^steps\.0\.parameters/],
    ['unknown trigger event', playbook({ trigger: { event: 'finding.created', conditions: {} } }), 'validation_failed', /^trigger\.event$/],
    ['no steps', playbook({ steps: [] }), 'validation_failed', /^steps$/],
    ['101 steps', playbook({ steps: Array.from({ length: 101 }, (_, i) => ({ id: `s${i}`, type: 'action', action_ref: 'notify' })) }), 'validation_failed', /^steps$/],
    ['unknown step type', playbook({ steps: withStep(0, { type: 'loop' }) }), 'validation_failed', /^steps\.0\.type$/],
    ['action step without action_ref', playbook({ steps: withStep(0, { action_ref: undefined }) }), 'validation_failed', /^steps\.0\.action_ref$/],
    ['field of another step type', playbook({ steps: withStep(0, { next_steps: ['check'] }) }), 'validation_failed', /^steps\.0\.next_steps$/],
    ['on_failure retry', playbook({ on_failure: 'retry' }), 'validation_failed', /^on_failure$/],
    ['21 tags', playbook({ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }), 'validation_failed', /^tags$/],
    ['a tag of 51 characters', playbook({ tags: ['x'.repeat(51)] }), 'validation_failed', /^tags\.0$/],
    ['a name of 201 characters', playbook({ name: 'n'.repeat(201) }), 'validation_failed', /^name$/],
    ['a description of 2001 characters', playbook({ description: 'd'.repeat(2001) }), 'validation_failed', /^description$/],
    ['51 parameters', playbook({ parameters: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`p${i}`, i])) }), 'validation_failed', /^parameters$/],
    ['a parameter name that is no identifier', playbook({ parameters: { 'a b': 1 } }), 'validation_failed', /^parameters/],
  ];
  const before = await rows(tenantId);
  for (const [what, payload, code, field] of cases) {
    for (const [method, url, body] of [['POST', '/api/playbooks', payload], ['PUT', `/api/playbooks/${id}`, { ...payload, version: payload.version === '1.0.0' ? '5.0.0' : payload.version }]] as const) {
      const res = await t0.request(method, url, { token, payload: body });
      t.is(res.statusCode, 400, `${method} ${what}: ${res.raw}`);
      t.is(res.body?.error?.code, code, `${method} ${what}: ${res.raw}`);
      const fields: string[] = (res.body?.error?.details ?? []).map((d: { field: string }) => d.field);
      t.true(fields.some((f) => field.test(f)), `${method} ${what}: ${JSON.stringify(res.body?.error?.details)}`);
      t.truthy(res.body.error.message);
      if (code !== 'validation_failed' && !/trigger/.test(String(field))) {
        t.true(res.body.error.details.every((d: { message: string }) => /^step (.+?: |"[^"]+" )/.test(d.message)), `${method} ${what}: ${JSON.stringify(res.body.error.details)}`);
      }
    }
  }
  t.is(await rows(tenantId), before);
  t.is((await t0.request('GET', `/api/playbooks/${id}`, { token })).body.data.version, '1.0.0');
});

test('language problems name the step in the message too, and every problem is reported at once', async (t) => {
  const { token } = await tenantWithAction();
  const res = await t0.request('POST', '/api/playbooks', {
    token,
    payload: playbook({ steps: [{ id: 'a', type: 'action', action_ref: 'nope-1', on_success: 'b' }, { id: 'b', type: 'action', action_ref: 'nope-2' }] }),
  });
  t.is(res.statusCode, 400);
  t.is(res.body.error.code, 'unknown_action_ref');
  t.deepEqual(res.body.error.details.map((d: { field: string }) => d.field), ['steps.0.action_ref', 'steps.1.action_ref']);
  t.regex(res.body.error.details[1].message, /step b/);
  t.regex(res.body.error.details[1].message, /nope-2/);
});

test('action_ref: an id, a name, name@version and id@version resolve in the tenant and are stored as written; another tenant\'s action does not', async (t) => {
  const { token, actionId } = await tenantWithAction();
  const refs = [actionId, 'notify', 'notify@1.0.0', `${actionId}@1.0.0`];
  const res = await t0.request('POST', '/api/playbooks', {
    token,
    payload: playbook({ steps: refs.map((ref, i) => ({ id: `s${i}`, type: 'action', action_ref: ref, on_success: i < refs.length - 1 ? `s${i + 1}` : null })) }),
  });
  t.is(res.statusCode, 201, res.raw);
  const got = (await t0.request('GET', `/api/playbooks/${res.body.data.id}`, { token })).body.data;
  t.deepEqual(got.steps.map((s: { action_ref: string }) => s.action_ref), refs);
  const other = await t0.tenant();
  for (const ref of [actionId, 'notify', 'notify@1.0.0']) {
    const foreign = await t0.request('POST', '/api/playbooks', { token: other.token, payload: playbook({ steps: [{ id: 's', type: 'action', action_ref: ref }] }) });
    t.is(foreign.statusCode, 400, ref);
    t.is(foreign.body.error.code, 'unknown_action_ref', ref);
  }
});

test('tenant isolation: another tenant\'s playbook is 404 on every route', async (t) => {
  const a = await tenantWithAction();
  const b = await tenantWithAction();
  const id = (await t0.request('POST', '/api/playbooks', { token: a.token, payload: playbook() })).body.data.id;
  const routes: Array<[string, string, unknown?]> = [
    ['GET', `/api/playbooks/${id}`],
    ['GET', `/api/playbooks/${id}/versions`],
    ['PUT', `/api/playbooks/${id}`, playbook({ version: '2.0.0' })],
    ['PATCH', `/api/playbooks/${id}`, { enabled: false }],
    ['DELETE', `/api/playbooks/${id}`],
  ];
  for (const [method, url, payload] of routes) {
    const res = await t0.request(method, url, { token: b.token, payload });
    t.is(res.statusCode, 404, `${method} ${url}`);
    t.is(res.body.error.code, 'not_found');
  }
  t.deepEqual((await t0.request('GET', '/api/playbooks', { token: b.token })).body.data, []);
  const still = await t0.request('GET', `/api/playbooks/${id}`, { token: a.token });
  t.like(still.body.data, { version: '1.0.0', enabled: true });
  await t.throwsAsync(() => t0.ctx.services.playbooks.forRun(b.tenantId, id), { message: /not found/ });
  t.is((await t0.request('GET', '/api/playbooks/not-an-id', { token: a.token })).statusCode, 400);
});

test('scopes: playbooks:read for the GETs, playbooks:write for the rest', async (t) => {
  const owner = await tenantWithAction();
  const id = (await t0.request('POST', '/api/playbooks', { token: owner.token, payload: playbook() })).body.data.id;
  const reader = (await t0.ctx.services.admin.createToken(owner.tenantId, { name: 'reader', scopes: ['playbooks:read', 'playbooks:run', 'actions:write'], expiresAt: null })).token;
  const writer = (await t0.ctx.services.admin.createToken(owner.tenantId, { name: 'writer', scopes: ['playbooks:write'], expiresAt: null })).token;
  for (const url of ['/api/playbooks', `/api/playbooks/${id}`, `/api/playbooks/${id}/versions`]) {
    t.is((await t0.request('GET', url, { token: reader })).statusCode, 200, url);
    const denied = await t0.request('GET', url, { token: writer });
    t.is(denied.statusCode, 403, url);
  }
  const writes: Array<[string, string, unknown?]> = [
    ['POST', '/api/playbooks', playbook({ name: 'x' })],
    ['PUT', `/api/playbooks/${id}`, playbook({ version: '2.0.0' })],
    ['PATCH', `/api/playbooks/${id}`, { enabled: false }],
    ['DELETE', `/api/playbooks/${id}`],
  ];
  for (const [method, url, payload] of writes) t.is((await t0.request(method, url, { token: reader, payload })).statusCode, 403, `${method} ${url}`);
  for (const [method, url, payload] of writes) t.true([200, 201, 204].includes((await t0.request(method, url, { token: writer, payload })).statusCode), `${method} ${url}`);
  t.is((await t0.request('GET', '/api/playbooks', { token: null })).statusCode, 401);
});
