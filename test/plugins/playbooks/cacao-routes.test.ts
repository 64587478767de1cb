import test from 'ava';
import { readFileSync } from 'node:fs';
import { cacaoSchemaProblems } from '../../../core/playbooks/cacao/cacao-schema.ts';
import { TENANT_SCOPES } from '../../../core/domain/scopes.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
test.before(async () => { t0 = await createTestApp(); });
test.after.always(async () => { await t0?.close(); });

const EXAMPLE = JSON.parse(readFileSync(new URL('../../core/playbooks/cacao/fixtures/cacao-v2-minimal-http-api.json', import.meta.url), 'utf8'));
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

const ACTIONS = [
  { name: 'block-ip', type: 'webhook', executor: 'webhook', parameters: [{ name: 'ip', type: 'string', required: true }], config: { url: 'https://firewall.example.com/api/block', method: 'POST', headers: { 'Content-Type': 'application/json' }, body_template: '{"ip": "{{ ip }}"}' } },
  { name: 'ask', type: 'approval', executor: 'local', parameters: [{ name: 'ip', type: 'string', required: true }], config: { message: 'Block {{ ip }}?' } },
  { name: 'js', type: 'script', executor: 'local', config: { source: 'return 1' } },
];

/** A tenant with the three actions and a playbook using every step type; `byId` refers to one action by id. */
async function tenantWithPlaybook(options: Parameters<TestApp['tenant']>[0] = {}) {
  const who = await t0.tenant(options);
  const ids: Record<string, string> = {};
  for (const a of ACTIONS) {
    const res = await t0.request('POST', '/api/actions', { token: who.token, payload: a });
    if (res.statusCode !== 201) throw new Error(res.raw);
    ids[a.name] = res.body.data.id;
  }
  const definition = {
    name: 'contain', version: '1.1.0', description: 'every step type', trigger: { event: 'finding.new', conditions: { severity: { gte: 'high' } } },
    on_failure: 'continue', timeout_minutes: 20, tags: ['containment'], parameters: { ip: '198.51.100.7', n: 2 },
    steps: [
      { id: 'gate', name: 'Gate', type: 'condition', if: { 'parameters.n': { gte: 2 } }, on_true: 'ask', on_false: null },
      { id: 'ask', name: 'Ask', type: 'action', action_ref: 'ask', parameters: { ip: '{{ parameters.ip }}' }, on_success: 'fan' },
      { id: 'fan', name: 'Fan', type: 'parallel', next_steps: ['block', 'check'], on_success: null },
      { id: 'block', name: 'Block', type: 'action', action_ref: 'block-ip@1.0.0', parameters: { ip: '{{ finding.title }}' } },
      { id: 'check', name: 'Check', type: 'action', action_ref: ids.js!, parameters: {} },
    ],
  };
  const res = await t0.request('POST', '/api/playbooks', { token: who.token, payload: definition });
  if (res.statusCode !== 201) throw new Error(res.raw);
  return { ...who, ids, definition, playbookId: res.body.data.id as string };
}

async function counts(tenantId: string): Promise<string> {
  const count = async (table: string) => Number((await t0.ctx.db(table).where({ tenant_id: tenantId }).count({ n: '*' }).first())!.n);
  return `${await count('actions')}/${await count('playbooks')}/${await count('playbook_versions')}`;
}
const importDoc = (token: string, doc: unknown, query = '') => t0.request('POST', `/api/playbooks/import${query}`, { token, payload: doc as object });

test('export: the CACAO document itself, valid in both schema passes, identical on re-export; 404 for another tenant, 400 for an unknown format', async (t) => {
  const { token, playbookId } = await tenantWithPlaybook();
  const res = await t0.request('GET', `/api/playbooks/${playbookId}/export?format=cacao_v2`, { token });
  t.is(res.statusCode, 200, res.raw);
  t.regex(String(res.headers['content-disposition']), /^attachment; filename="contain\.cacao\.json"$/);
  t.like(res.body, { type: 'playbook', spec_version: 'cacao-2.0', name: 'contain' });
  t.deepEqual(cacaoSchemaProblems(res.body), []);
  t.deepEqual([...new Set(Object.values(res.body.workflow as Record<string, { type: string }>).map((s) => s.type))].sort(), ['action', 'end', 'if-condition', 'parallel', 'start']);
  const again = await t0.request('GET', `/api/playbooks/${playbookId}/export`, { token });
  t.deepEqual(again.body, res.body);
  const other = await t0.tenant();
  t.is((await t0.request('GET', `/api/playbooks/${playbookId}/export`, { token: other.token })).statusCode, 404);
  const bad = await t0.request('GET', `/api/playbooks/${playbookId}/export?format=stix`, { token });
  t.is(bad.statusCode, 400);
  t.is(bad.body.error.code, 'validation_failed');
});

test('round trip into another tenant: the actions are recreated from the extension, steps and parameters are the same', async (t) => {
  const src = await tenantWithPlaybook();
  const doc = (await t0.request('GET', `/api/playbooks/${src.playbookId}/export`, { token: src.token })).body;
  const dst = await t0.tenant();
  const res = await importDoc(dst.token, doc);
  t.is(res.statusCode, 201, res.raw);
  t.deepEqual(res.body.data.actions.map((a: { name: string }) => a.name).sort(), ['ask', 'block-ip', 'js']);
  t.deepEqual(res.body.data.reused_actions, []);
  const jsId = res.body.data.actions.find((a: { name: string }) => a.name === 'js').id;
  const got = (await t0.request('GET', `/api/playbooks/${res.body.data.playbook.id}`, { token: dst.token })).body.data;
  const { steps, ...rest } = src.definition;
  t.like(got, rest);
  // The id-form ref now names the new tenant's action; everything else is as written.
  t.deepEqual(got.steps, steps.map((s) => (s.id === 'check' ? { ...s, action_ref: jsId } : s)));
});

test('round trip in the same tenant after a delete: identical actions are reused, the definition comes back exactly', async (t) => {
  const src = await tenantWithPlaybook();
  const doc = (await t0.request('GET', `/api/playbooks/${src.playbookId}/export`, { token: src.token })).body;
  t.is((await t0.request('DELETE', `/api/playbooks/${src.playbookId}`, { token: src.token })).statusCode, 204);
  const before = await counts(src.tenantId);
  const res = await importDoc(src.token, doc);
  t.is(res.statusCode, 201, res.raw);
  t.deepEqual(res.body.data.actions, []);
  t.deepEqual(res.body.data.reused_actions.map((a: { name: string }) => a.name).sort(), ['ask', 'block-ip', 'js']);
  const got = (await t0.request('GET', `/api/playbooks/${res.body.data.playbook.id}`, { token: src.token })).body.data;
  t.deepEqual(got.steps, src.definition.steps);
  t.deepEqual(got.parameters, src.definition.parameters);
  t.is(await counts(src.tenantId), before.replace(/^(\d+)\/(\d+)\/(\d+)$/, (_m, a, p, v) => `${a}/${Number(p) + 1}/${Number(v) + 1}`));
});

test('the CACAO document\'s own fields win over the extension: a copy edited as a CACAO user would (new name and id) imports as a new playbook', async (t) => {
  const src = await tenantWithPlaybook();
  const doc = (await t0.request('GET', `/api/playbooks/${src.playbookId}/export`, { token: src.token })).body;
  doc.id = 'playbook--6d1c2b7e-9a0f-4c3e-8d5b-2f7a1e4c9b30';
  doc.name = 'contain (copy)';
  doc.description = 'edited in a CACAO editor';
  doc.labels = ['copied'];
  doc.playbook_variables['__ip__'].value = '203.0.113.9';
  t.deepEqual(cacaoSchemaProblems(doc), []);
  const res = await importDoc(src.token, doc);
  t.is(res.statusCode, 201, res.raw);
  const got = (await t0.request('GET', `/api/playbooks/${res.body.data.playbook.id}`, { token: src.token })).body.data;
  t.not(got.id, src.playbookId);
  t.like(got, { name: 'contain (copy)', description: 'edited in a CACAO editor', tags: ['copied'], parameters: { ip: '203.0.113.9', n: 2 } });
  // What CACAO cannot say still comes from the extension.
  t.like(got, { version: '1.1.0', on_failure: 'continue', timeout_minutes: 20, trigger: src.definition.trigger });
  t.deepEqual(got.steps, src.definition.steps);
  // The unedited document clashes with the original: 409 naming it.
  const clash = await importDoc(src.token, (await t0.request('GET', `/api/playbooks/${src.playbookId}/export`, { token: src.token })).body);
  t.is(clash.statusCode, 409);
  t.is(clash.body.error.code, 'playbook_exists');
  t.regex(clash.body.error.message, /"contain"/);
  // A step renamed in the workflow keeps the new name; an edited condition is read from the CACAO text.
  const renamed = clone(doc);
  renamed.name = 'contain (renamed steps)';
  const gateId = Object.keys(renamed.workflow).find((k) => renamed.workflow[k].type === 'if-condition')!;
  renamed.workflow[gateId].name = 'Gate (edited)';
  renamed.workflow[gateId].condition = '__n__:value >= 5';
  const r2 = await importDoc(src.token, renamed);
  t.is(r2.statusCode, 201, r2.raw);
  const gate = r2.body.data.playbook.steps.find((s: { id: string }) => s.id === 'gate');
  t.is(gate.name, 'Gate (edited)');
  t.deepEqual(gate.if, { 'parameters.n': { gte: 5 } });
});

test('the reference example: dry run writes nothing; the import creates the webhook action and the playbook; a taken name is refused by import and dry run alike; after a delete the import reuses the action', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const dry = await importDoc(token, EXAMPLE, '?dry_run=true');
  t.is(dry.statusCode, 200, dry.raw);
  t.is(await counts(tenantId), '0/0/0');
  t.like(dry.body.data.playbook, { name: 'Block IP via firewall HTTP API', parameters: { blocked_ip: '198.51.100.7' }, trigger: { event: 'manual', conditions: {} } });
  t.like(dry.body.data.actions[0], { name: 'Block IP via firewall HTTP API: Add IP to blocklist', type: 'webhook', config: { url: 'https://firewall.example.com/api/v1/blocklist' } });
  const res = await importDoc(token, EXAMPLE);
  t.is(res.statusCode, 201, res.raw);
  t.is(await counts(tenantId), '1/1/1');
  t.like(res.body.data.actions[0], { name: 'Block IP via firewall HTTP API: Add IP to blocklist', type: 'webhook', executor: 'webhook', config: { method: 'POST', body_template: '{"ip": "{{ blocked_ip }}"}' } });
  t.deepEqual(res.body.data.playbook.steps, dry.body.data.playbook.steps);
  const twice = await importDoc(token, EXAMPLE);
  t.is(twice.statusCode, 409);
  t.is(twice.body.error.code, 'playbook_exists');
  t.is(await counts(tenantId), '1/1/1');
  // The dry run answers what the import would: the name is taken.
  const dryTwice = await importDoc(token, EXAMPLE, '?dry_run=true');
  t.is(dryTwice.statusCode, 409);
  t.is(dryTwice.body.error.code, 'playbook_exists');
  t.is((await t0.request('DELETE', `/api/playbooks/${res.body.data.playbook.id}`, { token })).statusCode, 204);
  const again = await importDoc(token, EXAMPLE);
  t.is(again.statusCode, 201, again.raw);
  t.deepEqual(again.body.data.actions, []);
  t.deepEqual(again.body.data.reused_actions, [{ id: res.body.data.actions[0].id, name: 'Block IP via firewall HTTP API: Add IP to blocklist', version: '1.0.0' }]);
  t.is(await counts(tenantId), '1/2/2');
});

test('dry_run: true in the body (the spec\'s form) previews like ?dry_run=true and writes nothing; it is not part of the document', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const dry = await importDoc(token, { ...clone(EXAMPLE), dry_run: true });
  t.is(dry.statusCode, 200, dry.raw);
  t.is(await counts(tenantId), '0/0/0');
  t.like(dry.body.data.playbook, { name: 'Block IP via firewall HTTP API' });
  const bad = await importDoc(token, { ...clone(EXAMPLE), dry_run: 'yes' });
  t.is(bad.statusCode, 400);
  t.true(bad.body.error.details.some((d: { field: string }) => d.field === 'dry_run'), bad.raw);
  const real = await importDoc(token, { ...clone(EXAMPLE), dry_run: false });
  t.is(real.statusCode, 201, real.raw);
  t.is(await counts(tenantId), '1/1/1');
});

test('unsupported constructs: 400 cacao_unsupported naming each step, nothing written', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const doc = clone(EXAMPLE);
  const action = 'action--420a2522-6aed-414b-9f8a-c07ac4447e90';
  const loop = 'while-condition--6b1f8a44-1f0e-4c3e-9d7e-0c2b8b7f1a10';
  doc.workflow[action].commands = [{ type: 'ssh', command: 'iptables -A INPUT -s __blocked_ip__:value -j DROP' }];
  doc.workflow[action].on_success = loop;
  doc.workflow[loop] = { type: 'while-condition', condition: "[__blocked_ip__:value = '1.2.3.4']", on_true: 'end--cf833186-85f9-48b3-b769-3479e1111d3e', on_completion: 'end--cf833186-85f9-48b3-b769-3479e1111d3e' };
  delete doc.workflow[action].on_failure;
  const res = await importDoc(token, doc, '?dry_run=true');
  t.is(res.statusCode, 400, res.raw);
  t.is(res.body.error.code, 'cacao_unsupported');
  t.deepEqual(res.body.error.details.map((d: { field: string }) => d.field).sort(), [action, loop]);
  t.is((await importDoc(token, doc)).statusCode, 400);
  t.is(await counts(tenantId), '0/0/0');
});

test('schema-invalid documents: 400 cacao_invalid with JSON paths, nothing written', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const doc = clone(EXAMPLE);
  delete doc.workflow['action--420a2522-6aed-414b-9f8a-c07ac4447e90'].commands[0].command;
  doc.id = 'playbook--not-a-uuid';
  const res = await importDoc(token, doc);
  t.is(res.statusCode, 400, res.raw);
  t.is(res.body.error.code, 'cacao_invalid');
  const fields = res.body.error.details.map((d: { field: string }) => d.field);
  t.true(fields.includes('/id'));
  t.true(fields.includes('/workflow/action--420a2522-6aed-414b-9f8a-c07ac4447e90/commands/0'));
  t.is((await importDoc(token, [1, 2])).body.error.code, 'cacao_invalid');
  t.is(await counts(tenantId), '0/0/0');
});

test('an action name taken by a different action: 409 cacao_action_conflict, nothing written', async (t) => {
  const { token, tenantId } = await t0.tenant();
  const taken = await t0.request('POST', '/api/actions', { token, payload: { name: 'Block IP via firewall HTTP API: Add IP to blocklist', type: 'script', executor: 'local', config: { source: 'return 2' } } });
  t.is(taken.statusCode, 201, taken.raw);
  const res = await importDoc(token, EXAMPLE);
  t.is(res.statusCode, 409, res.raw);
  t.is(res.body.error.code, 'cacao_action_conflict');
  t.is(res.body.error.details[0].field, 'actions.0.name');
  t.is(await counts(tenantId), '1/0/0');
});

test('scopes: export needs playbooks:read, import playbooks:write, and creating actions actions:write too', async (t) => {
  const { playbookId, tenantId } = await tenantWithPlaybook();
  const token = async (scopes: typeof TENANT_SCOPES) => (await t0.ctx.services.admin.createToken(tenantId, { name: 'narrow', scopes, expiresAt: null })).token as string;
  const noRead = await token(['actions:read']);
  t.is((await t0.request('GET', `/api/playbooks/${playbookId}/export`, { token: noRead })).statusCode, 403);
  const readOnly = await token(['playbooks:read']);
  t.is((await importDoc(readOnly, EXAMPLE, '?dry_run=true')).statusCode, 403);
  const playbooksOnly = await token(['playbooks:write']);
  t.is((await importDoc(playbooksOnly, EXAMPLE, '?dry_run=true')).statusCode, 200);
  const denied = await importDoc(playbooksOnly, EXAMPLE);
  t.is(denied.statusCode, 403, denied.raw);
  t.is(denied.body.error.code, 'insufficient_scope');
  t.is((await importDoc(await token(['playbooks:write', 'actions:write']), EXAMPLE)).statusCode, 201);
});

test('the extension is untrusted input: an action it carries is checked like POST /api/actions (400 cacao_action_invalid)', async (t) => {
  const src = await tenantWithPlaybook();
  const doc = (await t0.request('GET', `/api/playbooks/${src.playbookId}/export`, { token: src.token })).body;
  const ext = Object.values(doc.playbook_extensions as Record<string, { actions: Record<string, Record<string, unknown>> }>)[0]!;
  ext.actions.ask!.executor = 'shell';
  ext.actions['block-ip@1.0.0']!.config = { url: 'ftp://firewall.example.com/x', method: 'POST' };
  const dst = await t0.tenant();
  const res = await importDoc(dst.token, doc);
  t.is(res.statusCode, 400, res.raw);
  t.is(res.body.error.code, 'cacao_action_invalid');
  const fields = res.body.error.details.map((d: { field: string }) => d.field);
  t.true(fields.some((f: string) => /^actions\.\d+\.executor$/.test(f)), fields.join());
  t.true(fields.some((f: string) => /^actions\.\d+\.config\.url$/.test(f)), fields.join());
  t.is(await counts(dst.tenantId), '0/0/0');
});
