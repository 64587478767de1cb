import type { ActionVersion } from '../../actions/action-version.ts';
import type { PlaybookDefinition, PlaybookStep } from '../playbook-types.ts';
import { commandForAction, referenceInputOf } from './cacao-commands.ts';
import { conditionToCacao } from './cacao-conditions.ts';
import {
  RAMPART_EXTENSION_ID, RAMPART_EXTENSION_VERSION,
  type CacaoAgentTarget, type CacaoPlaybook, type CacaoStep, type CacaoVariable, type RampartPlaybookExtension, type RampartStepExtension,
} from './cacao-types.ts';
import { playbookRefsToCacao, toVariable, VARIABLE_KEY, variableKey } from './cacao-variables.ts';
import { cacaoId } from './uuid-v5.ts';

export interface ExportSource {
  playbookId: string;
  tenantId: string;
  definition: PlaybookDefinition;
  /** The playbook's creation and this version's creation (ms): CACAO `created` / `modified`. */
  createdAt: number;
  modifiedAt: number;
  /** Every action step's action_ref to the action version it resolves to now. */
  actions: ReadonlyMap<string, ActionVersion>;
}

const PLAYBOOK_TYPES = ['attack', 'detection', 'engagement', 'investigation', 'mitigation', 'notification', 'prevention', 'remediation'];
const iso = (ms: number) => new Date(ms).toISOString();

/** The references `__x__:value` in a text, as variable keys. */
const referencedKeys = (text: string): string[] => [...text.matchAll(/(__[a-zA-Z_][a-zA-Z0-9_-]{0,199}__):value/g)].map((m) => m[1]!);

/**
 * A Rampart playbook version as a CACAO v2 playbook (docs/design/cacao.md has the
 * mapping). Pure and deterministic: every id is a UUIDv5 of the playbook id and a Rampart
 * name, times come from the records, so exporting one version twice gives equal documents.
 * Every Rampart step with no next step leads to an `end` step of its own (CACAO wants
 * each branch to finish at its own end).
 */
export function playbookToCacao(src: ExportSource): CacaoPlaybook {
  const { playbookId, tenantId, definition: def } = src;
  const stepId = new Map<string, string>();
  const kindOf = { action: 'action', condition: 'if-condition', parallel: 'parallel' } as const;
  for (const s of def.steps) stepId.set(s.id, cacaoId(kindOf[s.type], `${playbookId}:step:${s.id}`));
  const workflow: Record<string, CacaoStep> = {};
  const agents: Record<string, CacaoAgentTarget> = {};
  const endFor = (owner: string, slot: string): string => {
    const id = cacaoId('end', `${playbookId}:end:${owner}:${slot}`);
    workflow[id] = { type: 'end', name: 'End' };
    return id;
  };
  const next = (target: string | null | undefined, owner: string, slot: string) => (target ? stepId.get(target)! : endFor(owner, slot));
  const variables = new Set(Object.keys(def.parameters));
  const targetId = cacaoId('security-category', `${tenantId}:target:run-asset`);
  const extension = (s: PlaybookStep, e: Omit<RampartStepExtension, 'step_id' | 'name' | 'null_pointers'>) => {
    const nulls = (['on_success', 'on_true', 'on_false'] as const).filter((k) => k in s && (s as unknown as Record<string, unknown>)[k] === null);
    const full: RampartStepExtension = { step_id: s.id, name: s.name, ...e };
    if (nulls.length) full.null_pointers = nulls;
    return { [RAMPART_EXTENSION_ID]: full };
  };
  const actionTypes = new Set<string>();

  const start = cacaoId('start', `${playbookId}:start`);
  workflow[start] = { type: 'start', name: 'Start', on_completion: stepId.get(def.steps[0]!.id)! };

  const actionStep = (s: Extract<PlaybookStep, { type: 'action' }>): CacaoStep => {
    const action = src.actions.get(s.action_ref);
    if (!action) throw new Error(`step ${s.id}: action_ref ${s.action_ref} was not resolved`);
    actionTypes.add(action.type);
    const { command, agentId, agent } = commandForAction(tenantId, action);
    agents[agentId] = agent;
    const stepVariables: Record<string, CacaoVariable> = {};
    for (const p of action.parameters) {
      const given = s.parameters[p.name];
      const value = given === undefined ? p.default : given;
      if (!VARIABLE_KEY.test(variableKey(p.name))) continue;
      if (p.type === 'secret') {
        stepVariables[variableKey(p.name)] = { type: 'string', value: null, description: `Secret: Rampart fills it from the credential "${p.credential ?? p.name}".` };
      } else if (value !== undefined && !(variables.has(p.name) && value === `{{ parameters.${p.name} }}`)) {
        stepVariables[variableKey(p.name)] = toVariable(typeof value === 'string' ? playbookRefsToCacao(value) : value);
        if (typeof value === 'object' && value !== null) stepVariables[variableKey(p.name)]!.value = playbookRefsToCacao(JSON.stringify(value));
      }
    }
    const texts = [command.command ?? '', command.content ?? '', ...Object.values(command.headers ?? {}).flat(), ...Object.values(stepVariables).map((v) => v.value ?? '')];
    const inArgs = [...new Set(texts.flatMap(referencedKeys))].filter((k) => k in stepVariables || variables.has(k.slice(2, -2)));
    const step: CacaoStep = { type: 'action', name: s.name, commands: [command], agent: agentId, targets: [targetId] };
    if (Object.keys(stepVariables).length) step.step_variables = stepVariables;
    if (inArgs.length) step.in_args = inArgs;
    step.timeout = action.timeoutSeconds * 1000;
    // abort: a failure ends the playbook (no on_failure); continue: the next step runs either way.
    step[def.on_failure === 'continue' ? 'on_completion' : 'on_success'] = next(s.on_success, s.id, 'next');
    step.step_extensions = extension(s, { action_ref: s.action_ref, parameters: s.parameters });
    return step;
  };

  for (const s of def.steps) {
    const id = stepId.get(s.id)!;
    if (s.type === 'action') {
      workflow[id] = actionStep(s);
    } else if (s.type === 'condition') {
      workflow[id] = {
        type: 'if-condition', name: s.name, condition: conditionToCacao(s.if, variables),
        on_true: next(s.on_true, s.id, 'true'), on_false: next(s.on_false, s.id, 'false'), on_completion: endFor(s.id, 'done'),
        step_extensions: extension(s, { condition: s.if }),
      };
    } else {
      const branches = s.next_steps.map((b) => stepId.get(b)!);
      // CACAO wants two branches or more; a branch that ends at once is the honest second.
      if (branches.length < 2) branches.push(endFor(s.id, 'empty-branch'));
      workflow[id] = { type: 'parallel', name: s.name, next_steps: branches, on_completion: next(s.on_success, s.id, 'join'), step_extensions: extension(s, {}) };
    }
  }

  const { steps, ...rest } = def;
  const actions: RampartPlaybookExtension['actions'] = {};
  for (const s of steps) if (s.type === 'action') actions[s.action_ref] = referenceInputOf(src.actions.get(s.action_ref)!);
  const playbookExtension: RampartPlaybookExtension = { definition: rest, step_order: steps.map((s) => s.id), actions };
  const types: string[] = [...new Set(([...actionTypes].filter((t) => t === 'remediation' || t === 'notification') as string[]).concat(def.tags.filter((t) => PLAYBOOK_TYPES.includes(t))))];
  const createdBy = cacaoId('identity', `tenant:${tenantId}`);

  const doc: CacaoPlaybook = {
    type: 'playbook',
    spec_version: 'cacao-2.0',
    id: cacaoId('playbook', playbookId),
    name: def.name,
    description: def.description,
    playbook_types: types.length ? types.sort() : ['remediation'],
    created_by: createdBy,
    created: iso(src.createdAt),
    modified: iso(Math.max(src.modifiedAt, src.createdAt)),
    workflow_start: start,
    workflow,
  };
  if (def.tags.length) doc.labels = def.tags;
  const playbookVariables = Object.entries(def.parameters).filter(([n]) => VARIABLE_KEY.test(variableKey(n)));
  if (playbookVariables.length) {
    doc.playbook_variables = Object.fromEntries(playbookVariables.map(([n, v]) => [variableKey(n), toVariable(v, { description: 'Rampart run parameter (a run may override it).', external: true })]));
  }
  if (Object.keys(agents).length) {
    doc.agent_definitions = agents;
    doc.target_definitions = { [targetId]: { type: 'security-category', name: 'Run target asset', description: 'The asset a Rampart run targets (target_asset_id, or the asset of the triggering finding).', category: ['server'] } };
  }
  doc.extension_definitions = {
    [RAMPART_EXTENSION_ID]: {
      type: 'extension-definition', name: 'Rampart playbook', created_by: createdBy, version: RAMPART_EXTENSION_VERSION,
      description: 'What CACAO cannot carry for a lossless round trip: action_ref and parameters of each step, native conditions, the trigger, on_failure mode, timeout and the actions\' definitions.',
      schema: 'Rampart docs/design/cacao.md, section "The Rampart extension".',
    },
  };
  doc.playbook_extensions = { [RAMPART_EXTENSION_ID]: playbookExtension };
  return doc;
}
