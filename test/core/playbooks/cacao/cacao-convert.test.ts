import test from 'ava';
import { readFileSync } from 'node:fs';
import { referenceInputOf } from '../../../../core/playbooks/cacao/cacao-commands.ts';
import { conditionFromCacao, conditionToCacao } from '../../../../core/playbooks/cacao/cacao-conditions.ts';
import { playbookToCacao } from '../../../../core/playbooks/cacao/cacao-export.ts';
import { cacaoToPlaybook } from '../../../../core/playbooks/cacao/cacao-import.ts';
import { cacaoSchemaProblems } from '../../../../core/playbooks/cacao/cacao-schema.ts';
import type { CacaoPlaybook } from '../../../../core/playbooks/cacao/cacao-types.ts';
import { ValidationError } from '../../../../core/errors.ts';
import type { PlaybookDefinition } from '../../../../core/playbooks/playbook-types.ts';
import { ACTIONS, EVERY_STEP, REFS } from './cacao-samples.ts';

const EXAMPLE = JSON.parse(readFileSync(new URL('./fixtures/cacao-v2-minimal-http-api.json', import.meta.url), 'utf8')) as CacaoPlaybook;
const exportOf = (definition: PlaybookDefinition, refs = REFS, playbookId = 'pbk_1') =>
  playbookToCacao({ playbookId, tenantId: 'ten_1', definition, createdAt: Date.UTC(2024, 4, 1), modifiedAt: Date.UTC(2024, 4, 2), actions: new Map(Object.entries(refs)) });
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
/** A document as another tool would write it: no Rampart extension anywhere. */
function withoutExtension(doc: CacaoPlaybook): CacaoPlaybook {
  const d = clone(doc);
  delete d.playbook_extensions;
  delete d.extension_definitions;
  for (const s of Object.values(d.workflow)) delete s.step_extensions;
  return d;
}
function refusedFields(t: import('ava').ExecutionContext, doc: CacaoPlaybook): string[] {
  const err = t.throws(() => cacaoToPlaybook(doc), { instanceOf: ValidationError });
  t.is(err?.code, 'cacao_unsupported');
  return ((err?.extra.details ?? []) as Array<{ field: string }>).map((d) => d.field);
}

test('the export of a playbook with every step type and command mapping validates in both schema passes', (t) => {
  const doc = exportOf(EVERY_STEP);
  t.deepEqual(cacaoSchemaProblems(doc), []);
  const types = new Set(Object.values(doc.workflow).map((s) => s.type));
  t.deepEqual([...types].sort(), ['action', 'end', 'if-condition', 'parallel', 'start']);
  const commands = new Set(Object.values(doc.workflow).flatMap((s) => s.commands ?? []).map((c) => c.type));
  t.deepEqual([...commands].sort(), ['bash', 'http-api', 'manual', 'x-rampart-javascript', 'x-rampart-notification']);
  t.is(doc.spec_version, 'cacao-2.0');
  t.regex(doc.id, /^playbook--[0-9a-f-]{36}$/);
  t.deepEqual(doc.playbook_variables?.__limit__, { type: 'integer', value: '3', description: 'Rampart run parameter (a run may override it).', external: true });
  // Pass 2 is real: an http-api command without its start line is caught at its path.
  const broken = clone(doc);
  const http = Object.entries(broken.workflow).find(([, s]) => s.commands?.[0]?.type === 'http-api')!;
  delete http[1].commands![0]!.command;
  t.deepEqual(cacaoSchemaProblems(broken), [{ field: `/workflow/${http[0]}/commands/0`, message: "must have required property 'command'" }]);
});

test('exports are deterministic: same version, same document; another playbook, other ids', (t) => {
  t.deepEqual(exportOf(EVERY_STEP), exportOf(EVERY_STEP));
  const other = exportOf(EVERY_STEP, REFS, 'pbk_2');
  t.not(other.id, exportOf(EVERY_STEP).id);
  t.not(other.workflow_start, exportOf(EVERY_STEP).workflow_start);
});

test('export → import with the Rampart extension restores the exact definition and the actions', (t) => {
  const plan = cacaoToPlaybook(exportOf(EVERY_STEP));
  t.deepEqual(plan.definition, EVERY_STEP);
  t.deepEqual(Object.fromEntries(plan.actions.map((a) => [a.ref, a.input])), Object.fromEntries(Object.entries(REFS).map(([ref, a]) => [ref, referenceInputOf(a)])));
});

test('export → import without the extension: webhook, approval and condition steps map back honestly', (t) => {
  const def: PlaybookDefinition = {
    name: 'Ask then block', version: '1.0.0', description: '', trigger: { event: 'manual', conditions: {} }, on_failure: 'continue', timeout_minutes: 60, tags: [],
    parameters: { ip: '198.51.100.7' },
    steps: [
      { id: 'sev', name: 'Known IP', type: 'condition', if: { 'parameters.ip': { in: ['198.51.100.7', '203.0.113.1'] } }, on_true: 'ask' },
      { id: 'ask', name: 'Ask', type: 'action', action_ref: 'approve-block', parameters: { ip: '{{ parameters.ip }}' }, on_success: 'block' },
      { id: 'block', name: 'Block', type: 'action', action_ref: 'block-ip', parameters: { ip: '{{ parameters.ip }}', reason: 'by {{ parameters.ip }}' } },
    ],
  };
  const doc = withoutExtension(exportOf(def));
  t.deepEqual(cacaoSchemaProblems(doc), []);
  const plan = cacaoToPlaybook(doc);
  const [cond, ask, block] = plan.definition.steps;
  t.like(plan.definition, { name: 'Ask then block', on_failure: 'continue', parameters: { ip: '198.51.100.7' }, trigger: { event: 'manual', conditions: {} } });
  t.deepEqual(cond, { id: cond!.id, name: 'Known IP', type: 'condition', if: { 'parameters.ip': { in: ['198.51.100.7', '203.0.113.1'] } }, on_true: ask!.id });
  t.deepEqual(ask, { id: ask!.id, name: 'Ask', type: 'action', action_ref: 'Ask then block: Ask', parameters: { ip: '{{ parameters.ip }}' }, on_success: block!.id });
  t.deepEqual(block, {
    id: block!.id, name: 'Block', type: 'action', action_ref: 'Ask then block: Block', parameters: { ip: '{{ parameters.ip }}', reason: 'by {{ parameters.ip }}' },
  });
  const byName = Object.fromEntries(plan.actions.map((a) => [a.ref, a.input]));
  t.deepEqual(byName['Ask then block: Ask']!.config, { message: 'Block {{ ip }}?' });
  t.like(byName['Ask then block: Block'], {
    type: 'webhook', executor: 'webhook', timeout_seconds: 30,
    config: { url: 'https://firewall.example.com/api/block/{{ ip }}', method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer {{ token }}' }, body_template: '{"ip": "{{ ip }}", "why": "{{ reason }}"}' },
  });
  // The secret stays a parameter without a value: Rampart never exports one and cannot invent one.
  t.deepEqual(byName['Ask then block: Block']!.parameters!.find((p) => p.name === 'token'), { name: 'token', type: 'string', required: false });
});

test('the reference example imports: variables, http-api command, agent address', (t) => {
  t.deepEqual(cacaoSchemaProblems(EXAMPLE), []);
  const plan = cacaoToPlaybook(EXAMPLE);
  t.deepEqual(plan.definition, {
    name: 'Block IP via firewall HTTP API', version: '1.0.0', description: 'Minimal example: start -> action (http-api) -> end',
    trigger: { event: 'manual', conditions: {} }, on_failure: 'continue', timeout_minutes: 60, tags: [], parameters: { blocked_ip: '198.51.100.7' },
    steps: [{ id: 'action--420a2522-6aed-414b-9f8a-c07ac4447e90', name: 'Add IP to blocklist', type: 'action', action_ref: 'Block IP via firewall HTTP API: Add IP to blocklist', parameters: { blocked_ip: '{{ parameters.blocked_ip }}' } }],
  });
  t.deepEqual(plan.actions, [{
    ref: 'Block IP via firewall HTTP API: Add IP to blocklist',
    input: {
      name: 'Block IP via firewall HTTP API: Add IP to blocklist', type: 'webhook', executor: 'webhook', description: 'Imported from CACAO step action--420a2522-6aed-414b-9f8a-c07ac4447e90.',
      config: { url: 'https://firewall.example.com/api/v1/blocklist', method: 'POST', headers: { 'Content-Type': 'application/json' }, body_template: '{"ip": "{{ blocked_ip }}"}' },
      parameters: [{ name: 'blocked_ip', type: 'string', required: true }],
    },
  }]);
});

const ID = (kind: string, n: number) => `${kind}--00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
function docWith(steps: Record<string, object>, first: string): CacaoPlaybook {
  return clone({
    ...EXAMPLE,
    workflow_start: ID('start', 1),
    workflow: { [ID('start', 1)]: { type: 'start', on_completion: first }, [ID('end', 99)]: { type: 'end' }, ...steps },
  }) as CacaoPlaybook;
}
const http = { type: 'http-api', command: 'POST /api/v1/blocklist HTTP/1.1', content: '{"ip": "__blocked_ip__:value"}' };
const agent = 'http-api--e5088a6c-6aa4-4979-965d-0fb7aa8cb9ba';

test('while, switch, playbook-action, non-HTTP commands, out_args and delay are refused by step id, all at once', (t) => {
  const doc = docWith({
    [ID('while-condition', 2)]: { type: 'while-condition', condition: '[__blocked_ip__:value = \'x\']', on_true: ID('action', 3), on_completion: ID('switch-condition', 4) },
    [ID('action', 3)]: { type: 'action', agent, commands: [{ type: 'bash', command: 'rm -rf /' }], on_completion: ID('end', 99) },
    [ID('switch-condition', 4)]: { type: 'switch-condition', switch: '__blocked_ip__', cases: { a: ID('playbook-action', 5) }, on_completion: ID('playbook-action', 5) },
    [ID('playbook-action', 5)]: { type: 'playbook-action', playbook_id: 'playbook--e20963b7-a870-48d5-8015-e5da558f14db', on_completion: ID('action', 6) },
    [ID('action', 6)]: { type: 'action', agent, commands: [http], out_args: ['__blocked_ip__'], delay: 5, on_completion: ID('end', 99) },
  }, ID('action', 3));
  t.deepEqual(cacaoSchemaProblems(doc), []);
  const fields = refusedFields(t, doc);
  for (const id of [ID('while-condition', 2), ID('action', 3), ID('switch-condition', 4), ID('playbook-action', 5), ID('action', 6)]) t.true(fields.includes(id), id);
});

test('an if-condition whose branches end at their own end steps continues at its on_completion', (t) => {
  const doc = docWith({
    [ID('if-condition', 2)]: { type: 'if-condition', condition: "[__blocked_ip__:value = '198.51.100.7' OR __blocked_ip__:value MATCHES '^10\\\\.']", on_true: ID('action', 3), on_completion: ID('action', 4) },
    [ID('action', 3)]: { type: 'action', agent, commands: [http], on_completion: ID('end', 98) },
    [ID('end', 98)]: { type: 'end' },
    [ID('action', 4)]: { type: 'action', agent, commands: [http, { type: 'manual', command: 'Check __blocked_ip__:value' }], on_completion: ID('end', 99) },
  }, ID('if-condition', 2));
  t.deepEqual(cacaoSchemaProblems(doc), []);
  const { definition } = cacaoToPlaybook(doc);
  t.deepEqual(definition.steps.map((s) => [s.id, s.type, 'on_success' in s ? s.on_success : undefined, 'on_true' in s ? [s.on_true, s.on_false] : undefined]), [
    [ID('if-condition', 2), 'condition', undefined, [ID('action', 3), ID('action', 4)]],
    [ID('action', 3), 'action', ID('action', 4), undefined],
    [ID('action', 4), 'action', `${ID('action', 4)}-2`, undefined],
    [`${ID('action', 4)}-2`, 'action', undefined, undefined],
  ]);
  t.deepEqual((definition.steps[0] as { if: unknown }).if, { any: [{ 'parameters.blocked_ip': '198.51.100.7' }, { 'parameters.blocked_ip': { matches: '^10\\.' } }] });
});

test('failure handling: different modes per step, and an on_failure branch, are refused', (t) => {
  const mixed = docWith({
    [ID('action', 2)]: { type: 'action', agent, commands: [http], on_success: ID('action', 3) },
    [ID('action', 3)]: { type: 'action', agent, commands: [http], on_completion: ID('end', 99) },
  }, ID('action', 2));
  t.deepEqual(refusedFields(t, mixed), [ID('action', 3)]);
  const branch = docWith({
    [ID('action', 2)]: { type: 'action', agent, commands: [http], on_success: ID('end', 99), on_failure: ID('action', 3) },
    [ID('action', 3)]: { type: 'action', agent, commands: [http], on_completion: ID('end', 99) },
  }, ID('action', 2));
  t.true(refusedFields(t, branch).includes(ID('action', 2)));
});

test('undeclared variables and unmappable conditions are refused by step id', (t) => {
  const doc = docWith({
    [ID('if-condition', 2)]: { type: 'if-condition', condition: "[ipv4-addr:value = '1.2.3.4']", on_true: ID('action', 3), on_completion: ID('end', 99) },
    [ID('action', 3)]: { type: 'action', agent, commands: [{ ...http, content: '__nope__:value' }], on_completion: ID('end', 99) },
  }, ID('if-condition', 2));
  t.deepEqual(refusedFields(t, doc).sort(), [ID('action', 3), ID('if-condition', 2)]);
});

test('schema-invalid documents are reported with JSON paths', (t) => {
  const doc = clone(EXAMPLE) as unknown as Record<string, any>;
  doc.created = '2024-05-01 12:00';
  delete doc.workflow['action--420a2522-6aed-414b-9f8a-c07ac4447e90'].agent;
  doc.spec_version = 'cacao-1.0';
  const fields = cacaoSchemaProblems(doc).map((p) => p.field);
  t.true(fields.includes('/created'));
  t.true(fields.includes('/spec_version'));
  t.true(fields.includes('/workflow/action--420a2522-6aed-414b-9f8a-c07ac4447e90'));
  t.deepEqual(cacaoSchemaProblems('not a playbook').map((p) => p.field), ['/']);
});

test('conditions: the exported string parses back for the supported subset', (t) => {
  const vars = new Set(['sev', 'n']);
  for (const set of [{ 'parameters.sev': 'high' }, { 'parameters.n': { gte: 3 } }, { 'steps.s1.output.status': { not: 'ok' } }, { 'parameters.sev': { in: ['a', "it's"] } }]) {
    t.deepEqual(conditionFromCacao(conditionToCacao(set, vars), vars), { set });
  }
  t.is(conditionToCacao({ 'parameters.sev': 'high', 'asset.tags': { contains: 'prod' } }, vars), "[__sev__:value = 'high' AND rampart:asset.tags CONTAINS 'prod']");
  t.true('problem' in conditionFromCacao("[__sev__:value LIKE 'a%']", vars));
  t.true('problem' in conditionFromCacao('[__other__:value = 1]', vars));
  t.deepEqual(conditionFromCacao("[(__sev__:value = 'a' OR __n__:value < 2) AND rampart:event.data.kind != 'x']", vars), {
    set: { all: [{ any: [{ 'parameters.sev': 'a' }, { 'parameters.n': { lt: 2 } }] }, { 'event.data.kind': { not: 'x' } }] },
  });
});

test('a loopback webhook exports as an ipv4 agent with its port and imports back to the same URL', (t) => {
  const def: PlaybookDefinition = { ...EVERY_STEP, on_failure: 'abort', steps: [{ id: 'hook', name: 'Hook', type: 'action', action_ref: 'loopback-hook', parameters: { count: 2 } }] };
  const doc = exportOf(def);
  t.deepEqual(cacaoSchemaProblems(doc), []);
  t.like(Object.values(doc.agent_definitions!)[0], { type: 'http-api', address: { ipv4: ['127.0.0.1'] }, port: '8080' });
  const plan = cacaoToPlaybook(withoutExtension(doc));
  t.like(plan.actions[0]!.input, { config: { url: 'http://127.0.0.1:8080/hook', method: 'PUT' }, parameters: [{ name: 'count', type: 'integer', required: true }] });
  t.deepEqual(plan.definition.steps[0], { id: plan.definition.steps[0]!.id, name: 'Hook', type: 'action', action_ref: `${def.name}: Hook`, parameters: { count: 2 } });
  t.is(ACTIONS.loopback!.executor.type, 'webhook');
});
